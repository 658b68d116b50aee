// The preview worker's work, free of worker plumbing so the main-thread fallback (tests, browsers
// without module workers) runs the very same code: read the file in chunks, validate and plan a
// definition or simulate a G-code program, build the 3D geometry, and answer questions about the
// program whose bytes only this side holds.
import { PlanningError, SimulationError, WindFileError } from '#engine/errors.ts';
import { PreviewBuilder, type PreviewGeometry } from '#engine/gcode/index.ts';
import { ProgramError as MachineProgramError, prepareProgram } from '#engine/machine/program.ts';
import { planChunks } from '#engine/plan/index.ts';
import type { PlanSummary } from '#engine/plan/types.ts';
import { Utf8Validator } from '#engine/text/utf8.ts';
import { parseWindDefinition, parseWindText } from '#engine/wind/index.ts';
import type { WindDefinition } from '#engine/wind/types.ts';
import { mandrelProfile } from './mandrel-profile.ts';
import { ProgramBytes } from './program-bytes.ts';
import type {
  LoadResult,
  PlanOptionsState,
  ProgramError,
  ProgramKind,
  ProgramRequest,
  ViewGeometry,
  WorkerAnswer,
} from './protocol.ts';
import { replacesProgram } from './protocol.ts';

/** Bytes read from a Blob per step: large enough to be quick, small enough for a lively progress bar. */
export const READ_CHUNK_BYTES = 4 * 1024 * 1024;
/** Planned bytes between two progress reports. */
const PLAN_REPORT_BYTES = 4 * 1024 * 1024;
/**
 * Planning runs in slices of about this long, each followed by a turn of the event loop, so a
 * newer edit that arrived meanwhile is heard and the older plan given up.
 */
const PLAN_SLICE_MS = 12;

/** One turn of the event loop: a message-channel task (timers are clamped to 4 ms when nested). */
function yieldToEventLoop(): Promise<void> {
  if (typeof MessageChannel === 'undefined') return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

export type Post = (answer: WorkerAnswer, transfer?: Transferable[]) => void;

export function kindOf(name: string): ProgramKind {
  return name.toLowerCase().endsWith('.wind') ? 'wind' : 'gcode';
}

interface Loaded {
  name: string;
  kind: ProgramKind;
  definition: WindDefinition | null;
  program: ProgramBytes | null;
}

interface Incoming {
  id: number;
  name: string;
  size: number;
  options: PlanOptionsState;
  reader: SourceReader;
}

export class PreviewSession {
  readonly #post: Post;
  /** Where the worker's own scene takes each program's geometry (when the page draws here). */
  #geometryTap: ((geometry: ViewGeometry) => void) | null = null;
  #loaded: Loaded | null = null;
  #incoming: Incoming | null = null;
  /** The newest request that replaces the program: an older one still reading or planning gives up. */
  #current = 0;
  /** Program requests noticed on arrival and not yet handled. */
  readonly #heard = new Set<number>();
  /** When the request being answered arrived. */
  #started = 0;

  constructor(post: Post) {
    this.#post = post;
  }

  /**
   * From now on each program's geometry also goes to `tap` (the scene drawn in this worker), which
   * keeps the arrays; the page then gets a copy, made here rather than on its thread.
   */
  tapGeometry(tap: (geometry: ViewGeometry) => void): void {
    this.#geometryTap = tap;
  }

  /**
   * Called as a request arrives, before the ones queued ahead of it have run: a newer program
   * request makes an older one still planning stop at its next slice, and queued ones skip.
   */
  notice(request: ProgramRequest): void {
    if (!replacesProgram(request)) return;
    this.#current = request.id;
    this.#heard.add(request.id);
  }

  async handle(request: ProgramRequest): Promise<void> {
    if (replacesProgram(request)) {
      // Not noticed on arrival (called directly): it is the newest by being handled now.
      if (!this.#heard.delete(request.id)) this.#current = request.id;
      else if (this.#current !== request.id) {
        this.#post({ type: 'cancelled', id: request.id });
        return;
      }
    }
    try {
      await this.#dispatch(request);
    } catch (error) {
      this.#post({
        type: 'failed',
        id: request.id,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async #dispatch(request: ProgramRequest): Promise<void> {
    if (request.type !== 'open-chunk' && request.type !== 'open-end') this.#started = performance.now();
    switch (request.type) {
      case 'open-blob': {
        const reader = new SourceReader(kindOf(request.name));
        const size = request.blob.size;
        for (let offset = 0; offset < size || (offset === 0 && size === 0); offset += READ_CHUNK_BYTES) {
          if (this.#current !== request.id) return this.#post({ type: 'cancelled', id: request.id });
          const bytes = new Uint8Array(
            await request.blob.slice(offset, offset + READ_CHUNK_BYTES).arrayBuffer(),
          );
          reader.push(bytes);
          this.#post({
            type: 'progress',
            id: request.id,
            phase: 'reading',
            done: offset + bytes.length,
            total: size,
          });
          if (size === 0) break;
        }
        if (this.#current !== request.id) return this.#post({ type: 'cancelled', id: request.id });
        await this.#finishOpen(request.id, request.name, request.options, reader);
        return;
      }
      case 'open-begin':
        this.#incoming = {
          id: request.id,
          name: request.name,
          size: request.size,
          options: request.options,
          reader: new SourceReader(kindOf(request.name)),
        };
        return;
      case 'open-chunk': {
        const incoming = this.#incoming;
        if (incoming?.id !== request.id) return;
        incoming.reader.push(request.bytes);
        this.#post({
          type: 'progress',
          id: request.id,
          phase: 'reading',
          done: incoming.reader.bytesRead,
          total: incoming.size,
        });
        return;
      }
      case 'open-end': {
        const incoming = this.#incoming;
        if (incoming?.id !== request.id) return;
        this.#incoming = null;
        if (this.#current !== request.id) return this.#post({ type: 'cancelled', id: request.id });
        await this.#finishOpen(incoming.id, incoming.name, incoming.options, incoming.reader);
        return;
      }
      case 'replan': {
        const loaded = this.#loaded;
        if (!loaded?.definition) throw new Error('No definition is open');
        await this.#planAndPost(request.id, loaded.name, loaded.definition, request.options, true);
        return;
      }
      case 'plan-text': {
        let definition: WindDefinition;
        try {
          definition = parseWindText(request.text, request.name);
        } catch (error) {
          this.#loaded = { name: request.name, kind: 'wind', definition: null, program: null };
          this.#postFailure(request.id, 'wind', request.name, error);
          return;
        }
        // The same program edited keeps the views' cameras; another name is another part.
        const same = this.#loaded?.name === request.name;
        await this.#planAndPost(request.id, request.name, definition, request.options, same);
        return;
      }
      case 'line': {
        const line = this.#loaded?.program?.commandLine(request.command) ?? null;
        this.#post({ type: 'line', id: request.id, line: line && { command: request.command, ...line } });
        return;
      }
      case 'program-blob': {
        const program = this.#loaded?.program;
        this.#post({
          type: 'program-blob',
          id: request.id,
          blob: program ? new Blob([program.bytes().slice()], { type: 'text/x-gcode' }) : null,
        });
        return;
      }
      case 'dry-run': {
        const program = this.#loaded?.program;
        if (!program) throw new Error('No program is open');
        try {
          const { total } = prepareProgram(new TextDecoder().decode(program.bytes()));
          this.#post({ type: 'dry-run', id: request.id, total });
        } catch (error) {
          if (!(error instanceof MachineProgramError)) throw error;
          this.#post({ type: 'dry-run', id: request.id, total: 0, error: error.message });
        }
        return;
      }
      case 'start-job': {
        const program = this.#loaded?.program;
        if (!program) throw new Error('No program is open');
        // The job is sent by content; the JSON text is made here, never on the page's thread.
        const body = JSON.stringify({ gcode: new TextDecoder().decode(program.bytes()) });
        const response = await fetch(request.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const answer = await response.json().catch(() => null);
        this.#post({ type: 'job', id: request.id, answer: { status: response.status, body: answer } });
        return;
      }
    }
  }

  async #finishOpen(
    id: number,
    name: string,
    options: PlanOptionsState,
    reader: SourceReader,
  ): Promise<void> {
    const kind = reader.kind;
    if (kind === 'wind') {
      let definition: WindDefinition;
      try {
        definition = parseWindDefinition(reader.program.bytes(), name);
      } catch (error) {
        this.#loaded = { name, kind, definition: null, program: null };
        this.#postFailure(id, kind, name, error);
        return;
      }
      await this.#planAndPost(id, name, definition, options, false);
      return;
    }
    let geometry: PreviewGeometry;
    try {
      geometry = reader.finish(name);
    } catch (error) {
      this.#loaded = { name, kind, definition: null, program: null };
      this.#postFailure(id, kind, name, error);
      return;
    }
    this.#loaded = { name, kind, definition: null, program: reader.program };
    this.#postLoaded(id, {
      ...(geometry.fittedDiameter === undefined ? {} : { fittedDiameter: geometry.fittedDiameter }),
      ok: true,
      kind,
      name,
      simulation: geometry.summary,
      geometry: viewGeometry(geometry, null, false),
      bytes: reader.program.byteLength,
      workerMs: performance.now() - this.#started,
    });
  }

  async #planAndPost(
    id: number,
    name: string,
    definition: WindDefinition,
    options: PlanOptionsState,
    keepCamera: boolean,
  ): Promise<void> {
    this.#post({ type: 'progress', id, phase: 'planning', done: 0, total: 0 });
    const program = new ProgramBytes();
    const builder = new PreviewBuilder();
    const chunks = planChunks(definition, options);
    let summary: PlanSummary;
    let reported = 0;
    let sliceStart = performance.now();
    try {
      for (;;) {
        if (performance.now() - sliceStart >= PLAN_SLICE_MS) {
          await yieldToEventLoop();
          if (this.#current !== id) {
            chunks.return(undefined as never);
            this.#post({ type: 'cancelled', id });
            return;
          }
          sliceStart = performance.now();
        }
        const step = chunks.next();
        if (step.done) {
          summary = step.value;
          break;
        }
        builder.push(step.value);
        program.append(step.value);
        if (program.byteLength - reported >= PLAN_REPORT_BYTES) {
          reported = program.byteLength;
          this.#post({ type: 'progress', id, phase: 'planning', done: reported, total: 0 });
        }
      }
    } catch (error) {
      this.#loaded = { name, kind: 'wind', definition, program: null };
      this.#postFailure(id, 'wind', name, error);
      return;
    }
    const geometry = builder.finish();
    this.#loaded = { name, kind: 'wind', definition, program };
    this.#postLoaded(id, {
      ok: true,
      kind: 'wind',
      name,
      plan: summary,
      simulation: geometry.summary,
      geometry: viewGeometry(geometry, definition, keepCamera),
      bytes: program.byteLength,
      workerMs: performance.now() - this.#started,
    });
  }

  #postLoaded(id: number, loaded: LoadResult & { ok: true }): void {
    let result = loaded;
    if (this.#geometryTap) {
      // The views are built and drawn here before the result goes: the page shows that as its own step.
      this.#post({ type: 'progress', id, phase: 'drawing', done: 0, total: 0 });
      this.#geometryTap(loaded.geometry);
      result = { ...loaded, geometry: copyArrays(loaded.geometry) };
    }
    const g = result.geometry;
    this.#post({ type: 'loaded', id, result }, [
      g.positions.buffer,
      g.commandIndex.buffer,
      g.elapsed.buffer,
      g.layerOf.buffer,
    ] as Transferable[]);
  }

  #postFailure(id: number, kind: ProgramKind, name: string, error: unknown): void {
    this.#post({ type: 'loaded', id, result: { ok: false, kind, name, error: programError(error) } });
  }
}

function programError(error: unknown): ProgramError {
  if (error instanceof WindFileError) return { level: 'file', message: error.message };
  if (error instanceof PlanningError) return { level: 'planning', message: error.message };
  if (error instanceof SimulationError) return { level: 'simulation', message: error.message };
  throw error;
}

/** Reads the file's chunks: a definition is only gathered; G-code is checked and previewed as it arrives. */
class SourceReader {
  readonly kind: ProgramKind;
  readonly program = new ProgramBytes();
  readonly #utf8 = new Utf8Validator();
  // Any G-code previews, not only Towpath's: without a header the mandrel is fitted to the path.
  readonly #builder = new PreviewBuilder({ fitMandrel: true });
  #failure: unknown;
  bytesRead = 0;

  constructor(kind: ProgramKind) {
    this.kind = kind;
  }

  push(bytes: Uint8Array): void {
    this.bytesRead += bytes.length;
    this.program.append(bytes);
    if (this.kind === 'wind') return;
    this.#utf8.push(bytes);
    if (this.#utf8.invalidAt !== -1 || this.#failure !== undefined) return;
    try {
      this.#builder.push(bytes);
    } catch (error) {
      this.#failure = error;
    }
  }

  /** The G-code's preview, or the SimulationError the simulate route would give. */
  finish(name: string): PreviewGeometry {
    this.#utf8.end();
    if (this.#utf8.invalidAt !== -1) {
      throw new SimulationError(
        `Could not read G-code at ${name}: not valid UTF-8 (byte ${this.#utf8.invalidAt})`,
        {
          unreadable: true,
        },
      );
    }
    if (this.#failure !== undefined) throw this.#failure;
    return this.#builder.finish();
  }
}

function copyArrays(g: ViewGeometry): ViewGeometry {
  return {
    ...g,
    positions: g.positions.slice(),
    commandIndex: g.commandIndex.slice(),
    elapsed: g.elapsed.slice(),
    layerOf: g.layerOf.slice(),
  };
}

/** The page's geometry: the preview plus a layer number per vertex and the mandrel to draw. */
export function viewGeometry(
  g: PreviewGeometry,
  definition: WindDefinition | null,
  keepCamera: boolean,
): ViewGeometry {
  const layerOf = new Uint16Array(g.vertexCount);
  g.layers.forEach((layer, k) => {
    layerOf.fill(Math.min(k, 0xffff), layer.firstVertex, layer.firstVertex + layer.vertexCount);
  });
  let mandrel: ViewGeometry['mandrel'];
  if (definition) {
    mandrel = {
      radius: definition.mandrelParameters.diameter / 2,
      startX: 0,
      length: definition.mandrelParameters.windLength,
      fitted: false,
      profile: mandrelProfile(definition),
    };
  } else {
    // Foreign G-code: a cylinder fitted to the path (its radius and carriage travel).
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < g.vertexCount; k++) {
      const x = g.positions[3 * k] as number;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    if (!(max >= min)) {
      min = 0;
      max = 0;
    }
    mandrel = {
      radius: g.radius,
      startX: min,
      length: Math.max(max - min, g.radius),
      fitted: true,
      profile: null,
    };
  }
  return {
    positions: g.positions,
    commandIndex: g.commandIndex,
    elapsed: g.elapsed,
    layerOf,
    layers: g.layers,
    vertexCount: g.vertexCount,
    commandCount: g.commandCount,
    mandrel,
    tow: definition && { ...definition.towParameters },
    keepCamera,
  };
}
