// The trusted-widget frame document: served by the LAN door with its own sandboxed policy, while
// every app page keeps the strict one.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { contentSecurityPolicyFor, RENDERER_CSP, STATIC_WIDGET_FRAME_CSP, WIDGET_FRAME_CSP } from './csp.ts';
import { WIDGET_FRAME_HTML } from './widget-frame.ts';

let ws: TestWorkstation | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

function directives(policy: string): Map<string, string> {
  return new Map(
    policy.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values.join(' ')];
    }),
  );
}

describe('the widget frame document', () => {
  it('is served with a sandboxed policy of its own that allows inline script but no connections', async () => {
    ws = await startTestWorkstation();
    const response = await fetch(`${ws.urls.lan}/widget-frame`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toBe(WIDGET_FRAME_HTML);
    const policy = directives(response.headers.get('content-security-policy') ?? '');
    expect(response.headers.get('content-security-policy')).toBe(WIDGET_FRAME_CSP);
    expect(policy.get('sandbox')).toBe('allow-scripts allow-popups');
    expect(policy.get('connect-src')).toBe("'none'");
    expect(policy.get('script-src')).toContain("'unsafe-inline'");
    expect(policy.has('frame-ancestors')).toBe(true);
  });

  it('for untrusted content, runs only its own loader script (by hash) and allows inline style', async () => {
    ws = await startTestWorkstation();
    const response = await fetch(`${ws.urls.lan}/widget-frame/static`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toBe(WIDGET_FRAME_HTML);
    expect(response.headers.get('content-security-policy')).toBe(STATIC_WIDGET_FRAME_CSP);
    const policy = directives(STATIC_WIDGET_FRAME_CSP);
    // The hash of the one script the served document holds, computed here from what was served.
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(script).digest('base64');
    expect(policy.get('script-src')).toBe(`'sha256-${hash}'`);
    expect(policy.get('style-src')).toBe("'unsafe-inline'");
    expect(policy.get('connect-src')).toBe("'none'");
    expect(policy.get('sandbox')).toBe('allow-scripts');
    expect(contentSecurityPolicyFor(`${ws.urls.lan}/widget-frame/static`)).toBe(STATIC_WIDGET_FRAME_CSP);
    expect(contentSecurityPolicyFor(`${ws.urls.lan}/widget-frame`)).toBe(WIDGET_FRAME_CSP);
    expect(contentSecurityPolicyFor(`${ws.urls.lan}/dashboards`)).toBe(RENDERER_CSP);
  });

  it('leaves the app pages strict: no inline script or style, images from anywhere over http(s) only', async () => {
    ws = await startTestWorkstation();
    const response = await fetch(`${ws.urls.lan}/dashboards/abc`, { headers: { accept: 'text/html' } });
    expect(response.headers.get('content-security-policy')).toBe(RENDERER_CSP);
    const policy = directives(RENDERER_CSP);
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self'");
    expect(policy.get('img-src')).toBe("'self' data: blob: http: https:");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    // Only images were widened: nothing else may come from other origins.
    for (const [name, value] of policy)
      if (name !== 'img-src' && name !== 'connect-src') expect(value).not.toMatch(/https?:/);
  });
});
