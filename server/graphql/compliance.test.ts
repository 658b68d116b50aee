// GraphQL over HTTP compliance: the `graphql-http` server audits against `/graphql` of a
// real workstation. Every MUST passes; SHOULD and MAY results are annotated, never required.
import { type AuditResult, serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkstation, type TestWorkstation } from '../testing/workstation.ts';

let ws: TestWorkstation | undefined;

beforeAll(async () => {
  ws = await startTestWorkstation();
});
afterAll(() => ws?.dispose());

// The audits are listed before the server starts; each asks for the URL only when it runs.
const audits = serverAudits({
  url: () => {
    if (!ws) throw new Error('workstation not started');
    return `${ws.urls.lan}/graphql`;
  },
});

function describeFailure(result: AuditResult): string {
  return result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`;
}

const must = audits.filter((audit) => audit.name.startsWith('MUST'));
const optional = audits.filter((audit) => !audit.name.startsWith('MUST'));

describe('graphql-http server audits', () => {
  it('covers MUST audits at all', () => {
    expect(must.length).toBeGreaterThan(0);
    expect(must.length + optional.length).toBe(audits.length);
  });

  describe('MUST', () => {
    for (const audit of must) {
      it(`${audit.id} ${audit.name}`, async () => {
        const result = await audit.fn();
        // The reason in the message names what the server did wrong.
        expect(describeFailure(result)).toBe('ok');
      });
    }
  });

  describe('SHOULD and MAY (reported, not required)', () => {
    for (const audit of optional) {
      it(`${audit.id} ${audit.name}`, async ({ annotate }) => {
        const result = await audit.fn();
        // Only MUST audits can fail with "error"; anything else is a recommendation missed.
        expect(result.status).not.toBe('error');
        if (result.status !== 'ok') await annotate(describeFailure(result), 'notice');
      });
    }
  });
});
