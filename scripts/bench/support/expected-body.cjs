// autocannon's body check for loads whose requests rotate (it refuses `expectBody` with `requests`).
// It runs inside autocannon's worker thread, which is handed only a module path: the expected body
// travels in the worker's copy of the environment, set by load.ts just before the worker starts.
module.exports = (body) => body === process.env.TOWPATH_BENCH_EXPECTED_BODY;
