// Messages between the Winding area and its preview worker. The program's bytes stay in the
// worker: the page gets the plan or simulation figures, the geometry (transferred, not copied) and
// answers to small questions (one line's text, a Blob to save, the result of sending the job).
import type { SimulationSummary } from '#engine/gcode/types.ts';
import type { AxisFormat, PlanSummary } from '#engine/plan/types.ts';
import type { SceneCommand } from '../scene/commands.ts';
import type { SceneStats } from '../scene/toolpath-scene.ts';
import type { UnwrappedCommand, UnwrappedStats } from '../scene/unwrapped-canvas.ts';
import type { MandrelProfile } from './mandrel-profile.ts';

export type ProgramKind = 'wind' | 'gcode';

export interface PlanOptionsState {
  axisFormat: AxisFormat;
  verbose: boolean;
}

export interface LoadedLayer {
  index: number;
  windType: string;
  firstVertex: number;
  vertexCount: number;
}

/** Geometry for the 3D view; every array's buffer is transferred from the worker. */
export interface ViewGeometry {
  positions: Float32Array;
  /** Per vertex, the 1-based command that reached it (0 = start). */
  commandIndex: Uint32Array;
  /** Per vertex, machine time in seconds. */
  elapsed: Float32Array;
  /** Per vertex, the position of its layer in `layers` (0 when the program has no layer comments). */
  layerOf: Uint16Array;
  layers: LoadedLayer[];
  vertexCount: number;
  commandCount: number;
  /** The mandrel drawn under the path. */
  mandrel: {
    radius: number;
    startX: number;
    length: number;
    fitted: boolean;
    /** A cone's or a vessel's surface along the axis; null for a cylinder of `radius`. */
    profile: MandrelProfile | null;
  };
  /** The definition's tow (null for G-code from elsewhere: the views pick a width to suit the part). */
  tow: { width: number; thickness: number } | null;
  /** A re-plan of the program on show (an edit, new options): the views keep their camera. */
  keepCamera: boolean;
}

export interface ProgramError {
  /** `file` and `planning` for a definition (spec §2, §3), `simulation` for G-code. */
  level: 'file' | 'planning' | 'simulation';
  message: string;
}

export type LoadResult =
  | {
      ok: true;
      kind: ProgramKind;
      name: string;
      plan?: PlanSummary;
      simulation: SimulationSummary;
      /** G-code without the Parameters header: the mandrel diameter (mm) its figures and view assume. */
      fittedDiameter?: number;
      geometry: ViewGeometry;
      bytes: number;
      /** Time the worker spent on this request (reading, planning or simulating, preview), ms. */
      workerMs: number;
    }
  | { ok: false; kind: ProgramKind; name: string; error: ProgramError };

export interface CommandLine {
  command: number;
  sourceLine: number;
  text: string;
}

export interface JobAnswer {
  status: number;
  body: unknown;
}

/** Requests to the worker. Every request has an id that its answer repeats. */
export type WorkerRequest =
  | { type: 'open-blob'; id: number; name: string; blob: Blob; options: PlanOptionsState }
  | { type: 'open-begin'; id: number; name: string; size: number; options: PlanOptionsState }
  | { type: 'open-chunk'; id: number; bytes: Uint8Array }
  | { type: 'open-end'; id: number }
  | { type: 'replan'; id: number; options: PlanOptionsState }
  /**
   * A definition's text as it is being edited: planned like an opened file and kept as the open
   * program. A newer program request supersedes one still planning (it answers `cancelled`).
   */
  | { type: 'plan-text'; id: number; name: string; text: string; options: PlanOptionsState }
  | { type: 'line'; id: number; command: number }
  | { type: 'program-blob'; id: number }
  | { type: 'start-job'; id: number; url: string }
  | { type: 'dry-run'; id: number }
  /** The page will hand this worker its canvas: keep each program's geometry here to draw it. */
  | { type: 'scene-host'; id: number }
  /** The 3D view's canvas (from transferControlToOffscreen) and its size in CSS pixels. */
  | {
      type: 'scene-attach';
      id: number;
      canvas: OffscreenCanvas;
      width: number;
      height: number;
      pixelRatio: number;
      /** Where the timeline stands (a machine's place), so the first frame is not drawn all done. */
      scrub?: number;
    }
  | { type: 'scene'; id: number; command: SceneCommand }
  | { type: 'scene-detach'; id: number }
  /** The unwrapped view's canvas, drawn here like the 3D view's; it follows the 3D view's timeline. */
  | {
      type: 'scene-unwrapped-attach';
      id: number;
      canvas: OffscreenCanvas;
      width: number;
      height: number;
      pixelRatio: number;
    }
  | { type: 'scene-unwrapped'; id: number; command: UnwrappedCommand }
  | { type: 'scene-unwrapped-detach'; id: number };

/** Requests for the scene the worker draws; they get no answer (frames are reported as they are drawn). */
export type SceneRequest = Extract<
  WorkerRequest,
  {
    type:
      | 'scene-host'
      | 'scene-attach'
      | 'scene'
      | 'scene-detach'
      | 'scene-unwrapped-attach'
      | 'scene-unwrapped'
      | 'scene-unwrapped-detach';
  }
>;
/** Requests about the open program, answered by the preview session. */
export type ProgramRequest = Exclude<WorkerRequest, SceneRequest>;

/** Requests that replace the open program: the newest wins and older ones still running give up. */
export function replacesProgram(request: WorkerRequest): boolean {
  return (
    request.type === 'open-blob' ||
    request.type === 'open-begin' ||
    request.type === 'plan-text' ||
    request.type === 'replan'
  );
}

export function isSceneRequest(request: WorkerRequest): request is SceneRequest {
  return request.type.startsWith('scene');
}

export type WorkerAnswer =
  | { type: 'progress'; id: number; phase: 'reading' | 'planning' | 'drawing'; done: number; total: number }
  | { type: 'loaded'; id: number; result: LoadResult }
  /** A newer program request superseded this one before it finished. */
  | { type: 'cancelled'; id: number }
  | { type: 'line'; id: number; line: CommandLine | null }
  | { type: 'program-blob'; id: number; blob: Blob | null }
  | { type: 'job'; id: number; answer: JobAnswer }
  | { type: 'dry-run'; id: number; total: number; error?: string }
  | { type: 'failed'; id: number; message: string }
  /** A frame the worker drew (id 0: not an answer to one request). */
  | { type: 'scene-frame'; id: 0; stats: SceneStats }
  /** A frame of the unwrapped view the worker drew. */
  | { type: 'unwrapped-frame'; id: 0; stats: UnwrappedStats }
  /** The worker could not draw (no WebGL there, a lost context): the view says so. */
  | { type: 'scene-error'; id: 0; message: string };
