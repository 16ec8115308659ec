// A port found free can be taken by another process before the dev server binds it: a server
// whose port was not asked for then starts on another free one; an asked-for port stays asked for.
import { createServer, type Server } from 'node:net';
import { Connection } from '@temporalio/client';
import { findFreePort } from '../../stack/ports';
import { startTemporalServer } from '../helpers/temporal-server';

jest.mock('../../stack/ports', () => {
  const actual = jest.requireActual<typeof import('../../stack/ports')>('../../stack/ports');
  return { ...actual, findFreePort: jest.fn(actual.findFreePort) };
});

/** A port another process holds: a listener of this test on 127.0.0.1. */
async function takenPort(): Promise<{ port: number; holder: Server }> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const address = holder.address();
  if (address === null || typeof address !== 'object') throw new Error('no port');
  return { port: address.port, holder };
}

test('a server whose free port was taken before it bound it starts on another one', async () => {
  const { port: taken, holder } = await takenPort();
  jest.mocked(findFreePort).mockResolvedValueOnce(taken);
  const server = await startTemporalServer();
  try {
    expect(server.port).not.toBe(taken);
    expect(server.address).toBe(`127.0.0.1:${server.port}`);
    const connection = await Connection.connect({ address: server.address });
    await connection.close();
  } finally {
    await server.stop();
    holder.close();
  }
}, 120_000);

test('an asked-for port that is taken fails, naming it', async () => {
  const { port: taken, holder } = await takenPort();
  try {
    await expect(startTemporalServer({ port: taken })).rejects.toThrow(
      new RegExp(`can't set frontend port ${taken}`),
    );
  } finally {
    holder.close();
  }
}, 120_000);
