// The e-stop benchmark's load on the core (machine-process.ts), from a process of its own as LAN
// clients and automation scripts are: building and sending the requests costs this process's CPU,
// not the benchmark process's, whose event loop drives the button press and reads the controller.
// Usage: core-load-child.ts <graphql|wind|plan> <url> [<path>]; keeps its requests in flight until
// SIGTERM, then exits once the ones in flight have answered. Prints `busy` once the first is sent.

const GRAPHQL_DOCUMENT_BYTES = 99_000;

/** A GraphQL document of about 99,000 bytes and under 10,000 tokens, different every time. */
function graphqlDocument(): string {
  const tag = Math.random().toString(36).slice(2, 10);
  const parts: string[] = [];
  let size = 20;
  for (let i = 0; size < GRAPHQL_DOCUMENT_BYTES - 80; i++) {
    const field = `alias_${tag}_${i}_padding_padding_padding: __typename`;
    parts.push(field);
    size += field.length + 1;
  }
  return `query Q${tag} { ${parts.join(' ')} }`;
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const [kind, url, path] = process.argv.slice(2);
const requests: Record<string, { workers: number; request: () => Promise<unknown> }> = {
  // Four maximum-size documents at a time.
  graphql: { workers: 4, request: () => post(`${url}/graphql`, { query: graphqlDocument() }) },
  wind: { workers: 1, request: () => post(`${url}/validate/from-file`, { path }) },
  plan: { workers: 1, request: () => post(`${url}/plan/from-file`, { path }) },
};
const load = kind ? requests[kind] : undefined;
if (!load || !url) {
  process.stderr.write('usage: core-load-child.ts <graphql|wind|plan> <url> [<path>]\n');
  process.exit(2);
}

let stopped = false;
process.once('SIGTERM', () => {
  stopped = true;
});
const loops = Array.from({ length: load.workers }, async () => {
  while (!stopped)
    await load.request().then(
      (response) => (response as Response).arrayBuffer(),
      () => {},
    );
});
process.stdout.write('busy\n');
await Promise.all(loops);
process.exit(0);
