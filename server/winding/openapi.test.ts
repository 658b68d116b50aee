import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

let ws: TestWorkstation;
let document: {
  openapi: string;
  info: { title: string };
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, unknown>; requestBody: { content: Record<string, { example: unknown }> } }
    >
  >;
};

beforeAll(async () => {
  ws = await startTestWorkstation();
  document = await (await fetch(`${ws.urls.winding}/openapi.json`)).json();
});
afterAll(() => ws?.dispose());

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(document.info.title).toBe('Towpath winding service');
  });

  it('lists every route with every status it can answer', () => {
    const statuses = (path: string) => Object.keys(document.paths[path]?.post?.responses ?? {}).sort();
    expect(Object.keys(document.paths).sort()).toEqual([
      '/plan/from-file',
      '/simulate/from-file',
      '/stream',
      '/stream/',
      '/validate/from-file',
    ]);
    for (const path of ['/plan/from-file', '/simulate/from-file', '/validate/from-file']) {
      expect(statuses(path)).toEqual(['200', '400', '403', '404', '405', '413']);
    }
    expect(statuses('/stream/')).toEqual(['200', '400', '405', '409', '413', '502']);
  });

  it('gives request examples that work as they are', async () => {
    for (const path of ['/plan/from-file', '/simulate/from-file', '/validate/from-file', '/stream/']) {
      const example = document.paths[path]?.post?.requestBody.content['application/json']?.example;
      const response = await fetch(`${ws.urls.winding}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(example),
      });
      expect([path, response.status]).toEqual([path, 200]);
    }
  });
});

describe('/docs', () => {
  it('serves Swagger UI from the installed package, not a CDN', async () => {
    const page = await (await fetch(`${ws.urls.winding}/docs`)).text();
    expect(page).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(page).not.toMatch(/https?:\/\//);
    const bundle = await fetch(`${ws.urls.winding}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect((await fetch(`${ws.urls.winding}/docs/assets/index.html`)).status).toBe(404);
  });
});
