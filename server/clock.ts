// Wall time for the core's rules: expiries, audit stamps, fixed windows, entity ids.

/**
 * Milliseconds since the epoch, injected so tests move time instead of sleeping. Wall time can jump;
 * what waits on durations (timers, protocol deadlines) takes the engine's monotonic `Clock`
 * (engine/machine/clock.ts) instead.
 */
export type Now = () => number;
