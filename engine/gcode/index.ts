// G-code reading for the winding engine: the simulator of spec §5 and the 3D preview geometry.
export type { PreviewGeometry, PreviewLayer, PreviewOptions } from './preview.ts';
export { buildPreview, PreviewBuilder } from './preview.ts';
export { GcodeSimulator, simulateGcode } from './simulator.ts';
export type { SimulationSummary } from './types.ts';
