// The one panic of the SDK's Rust core that CLI tests read past (test/helpers/cli-process.ts):
// exactly its lines go, anything else on stderr stays.
import { withoutCoreShutdownPanic } from '../helpers/cli-process';

const PANIC = [
  '',
  "thread 'tokio-runtime-worker' (12671) panicked at sdk-core/crates/sdk-core/src/worker/activities/local_activities.rs:997:33:",
  'receive half not dropped: SendError { .. }',
  'stack backtrace:',
  '   0: __rustc::rust_begin_unwind',
  '   3: <temporalio_sdk_core::worker::activities::local_activities::TimeoutBag>::mark_started::{closure#0}',
  'note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.',
  '',
].join('\n');

test('the local-activity shutdown panic goes, other output stays', () => {
  expect(withoutCoreShutdownPanic(PANIC)).toBe('');
  expect(withoutCoreShutdownPanic(`tideline: something\n${PANIC}`)).toBe('tideline: something\n');
});

test('another panic, or the same message from elsewhere, stays', () => {
  const other = PANIC.replace('receive half not dropped', 'index out of bounds');
  expect(withoutCoreShutdownPanic(other)).toBe(other);
  const elsewhere = PANIC.replace('local_activities.rs', 'workflow/managed_run.rs');
  expect(withoutCoreShutdownPanic(elsewhere)).toBe(elsewhere);
});
