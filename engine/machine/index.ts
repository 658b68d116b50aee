// The Marlin streaming host (spec/winding.md §6): everything a door or the CLI needs.
export { type Clock, ManualClock, systemClock, type TimerHandle } from './clock.ts';
export { MachineStateError } from './errors.ts';
export {
  BUSY_MESSAGE,
  DEFAULT_BAUD_RATE,
  DEFAULT_TIMINGS,
  type HostTimings,
  MarlinHost,
  type MarlinHostOptions,
  type RunningJob,
} from './host.ts';
export {
  checksum,
  commandOf,
  frameLine,
  MAX_COMMAND_LENGTH,
  type Program,
  type ProgramCommand,
  ProgramError,
  prepareProgram,
  SYNC_FRAME,
} from './program.ts';
export { classify, isAdvancedOk, LineSplitter, type Received } from './received.ts';
export { createMemoryLink, type MemoryDevice, type Transport, type TransportOpener } from './transport.ts';
export type * from './types.ts';
