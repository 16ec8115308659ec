// How every tool answers: in text (what most clients show) and in structured content (what an
// agent parses); a refusal is a tool result marked as an error whose text starts with its stable
// code (errors.ts). Anything else thrown is a bug and reaches the client as such.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpToolError } from './errors';
import { printable } from '../cloud/printable';
import { MCP_TOOLS, type McpToolName } from './profiles';

/** What a tool answers with when it did what it was asked. */
export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
}

export function answer(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function refusal(error: McpToolError): CallToolResult {
  // A refusal quotes what the agent or a run sent: its text is escaped, its structure exact.
  const text = [
    `${error.code}: ${printable(error.message)}`,
    ...(error.detail !== undefined ? [printable(error.detail)] : []),
  ];
  return {
    isError: true,
    content: [{ type: 'text', text: text.join('\n') }],
    structuredContent: { code: error.code, message: error.message, ...error.data },
  };
}

export async function guarded(action: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof McpToolError) return refusal(error);
    throw error;
  }
}

export const annotations = (name: McpToolName) => ({
  readOnlyHint: !MCP_TOOLS[name].changes,
  destructiveHint: name === 'cancel',
  openWorldHint: false,
});
