// The binding grammar of dashboard-document.md §2.1 as both the server's validation and the renderer's
// resolution read it.
import { describe, expect, it } from 'vitest';
import { isBinding, isFieldPath, isTemplate, parseBinding, parseSteps } from './bindings.ts';

describe('bindings (§2.1)', () => {
  it.each([
    'datasources.winder.percent',
    'winder["percent"]',
    'Cells.machines[1].name',
    `["Resin bath"].meta['sensor.id']`,
    'datasources["my id"].x',
  ])('accepts the binding %s', (text) => expect(isBinding(text)).toBe(true));

  it.each(['', 'a b', 'a..b', 'a[01]', '[0]', 'a["x]', 'datasources[0]', 'x'.repeat(513), 'a["x\ty"]'])(
    'refuses the binding %j',
    (text) => expect(isBinding(text)).toBe(false),
  );

  it('names a datasource by id after the word datasources, by title otherwise', () => {
    expect(parseBinding('datasources.winder.percent')).toEqual({
      ref: { byId: true, key: 'winder' },
      steps: [{ kind: 'name', name: 'percent' }],
    });
    expect(parseBinding(`datasources['my \\'id\\''][0]`)).toEqual({
      ref: { byId: true, key: "my 'id'" },
      steps: [{ kind: 'index', index: 0 }],
    });
    expect(parseBinding('["datasources"].x')).toEqual({
      ref: { byId: false, key: 'datasources' },
      steps: [{ kind: 'name', name: 'x' }],
    });
    expect(parseBinding('Cells.machines[1]')).toEqual({
      ref: { byId: false, key: 'Cells' },
      steps: [
        { kind: 'name', name: 'machines' },
        { kind: 'index', index: 1 },
      ],
    });
  });

  it('parses the bare word datasources as a title, which no datasource may have', () => {
    expect(parseBinding('datasources')).toEqual({ ref: { byId: false, key: 'datasources' }, steps: [] });
  });

  it('takes backslash escapes only of the quote and of itself', () => {
    expect(parseSteps(`["a\\"b\\\\c"]`)).toEqual([{ kind: 'name', name: 'a"b\\c' }]);
    expect(parseSteps(`["a\\nb"]`)).toBeNull();
  });
});

describe('field paths and templates (§2.1, §2.3)', () => {
  it('reads field paths from a row', () => {
    expect(isFieldPath('')).toBe(true);
    expect(isFieldPath('[0].name')).toBe(true);
    expect(isFieldPath('a b')).toBe(false);
    expect(isFieldPath('.a')).toBe(false);
    expect(parseSteps('[0].name')).toEqual([
      { kind: 'index', index: 0 },
      { kind: 'name', name: 'name' },
    ]);
  });

  it('checks every closed placeholder of a template', () => {
    expect(isTemplate('{{ Winder.jobName }} · {{ Winder.percent }} %')).toBe(true);
    expect(isTemplate('unclosed {{ and literal')).toBe(true);
    expect(isTemplate('{{ not a binding }}')).toBe(false);
  });
});
