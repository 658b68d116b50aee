// The trusted-widget frame document: served by the LAN door with its own sandboxed policy, while
// every app page keeps the strict one.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';
import { RENDERER_CSP, WIDGET_FRAME_CSP } from './csp.ts';
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
