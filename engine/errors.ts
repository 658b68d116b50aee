// Typed engine errors (spec/winding.md, "Error classes"). Messages are the exact texts of the spec;
// each door maps the class to a status code in one place.

/** Missing or unreadable `.wind` file, bad JSON, schema errors. `missing` marks "file not found". */
export class WindFileError extends Error {
  override name = 'WindFileError';
  readonly level = 'file' as const;
  readonly missing: boolean;
  constructor(message: string, options: { missing?: boolean } = {}) {
    super(message);
    this.missing = options.missing ?? false;
  }
}

/** A layer check or planning guard failed; the message is the bare `Layer {i}: …` text. */
export class PlanningError extends Error {
  override name = 'PlanningError';
  readonly level = 'planning' as const;
}

/**
 * G-code the simulator cannot process, or a G-code file that is missing (`missing`) or cannot be
 * read as text (`unreadable`: not a regular file, too large, refused by the OS, not UTF-8).
 */
export class SimulationError extends Error {
  override name = 'SimulationError';
  readonly missing: boolean;
  readonly unreadable: boolean;
  constructor(message: string, options: { missing?: boolean; unreadable?: boolean } = {}) {
    super(message);
    this.missing = options.missing ?? false;
    this.unreadable = options.unreadable ?? false;
  }
}

/** Serial or controller failure while streaming. */
export class MachineError extends Error {
  override name = 'MachineError';
}
