// Errors of the machine controller besides MachineError (engine/errors.ts, serial and controller
// failures) and ProgramError (program.ts, a program refused before sending).

/** The request does not fit the controller's state (a job already runs, another port is open). */
export class MachineStateError extends Error {
  override name = 'MachineStateError';
}
