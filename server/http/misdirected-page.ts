// What a browser is shown when it opens a workstation-only page by another name (a LAN address, or
// a name no one listed): the refusal's 421 stays, but a person gets a page saying why and what to
// do instead of the bare JSON API clients read.
import type { FastifyRequest } from 'fastify';

/** A browser opening a page, not a script or an API client: its `Accept` asks for HTML by name. */
export function wantsPage(request: FastifyRequest): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    /\btext\/html\b/i.test(request.headers.accept ?? '')
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The page's HTML, naming the address that works on the workstation itself. */
export function misdirectedPage(request: FastifyRequest): string {
  const port = request.socket.localPort;
  const local = `http://127.0.0.1${port ? `:${port}` : ''}${request.url}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Only on the workstation – Towpath</title>
<style>
body { font-family: system-ui, sans-serif; color: #1d2630; background: #f6f7f9; margin: 0; }
main { max-width: 40rem; margin: 3rem auto; padding: 0 1.25rem; line-height: 1.5; }
code { background: #e9edf1; padding: 0.1rem 0.3rem; border-radius: 3px; overflow-wrap: anywhere; }
</style>
</head>
<body>
<main>
<h1>This page is only available on the workstation itself</h1>
<p>It reads files or controls the winder, so Towpath shows it only to a browser on the workstation
(the PC attached to the winder), opened by its own address — not from another computer on the
network, nor by a name the workstation does not know.</p>
<p>What to do:</p>
<ul>
<li>On the workstation, use the Towpath window, or open <code>${escapeHtml(local)}</code>.</li>
<li>From this computer, open the Towpath address you were given without this page's path to see the
dashboards shared with you.</li>
<li>If you reach the workstation by a name of its own and should be able to use this page, an
administrator can list that name in <code>ALLOWED_HOSTS</code>.</li>
</ul>
<p>(HTTP 421 Misdirected request)</p>
</main>
</body>
</html>
`;
}
