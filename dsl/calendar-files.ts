// Reads the calendar files (`ics:`) a configuration names, relative to the file that names them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CalendarFileReader } from './calendars';

/** At most this many bytes are read from one calendar file. */
const MAX_CALENDAR_BYTES = 4 * 1024 * 1024;

export function calendarFileReader(baseDir: string, readFile?: (file: string) => string): CalendarFileReader {
  return (file) => {
    const full = path.resolve(baseDir, file);
    const text = readFile !== undefined ? readFile(full) : readFileSync(full, 'utf8');
    if (text.length > MAX_CALENDAR_BYTES) throw new Error(`larger than ${MAX_CALENDAR_BYTES} bytes`);
    return text;
  };
}
