// The design studio in Chromium against a real core: every valid reference case built from a new
// definition through the forms plans (with `towpath plan`) to the reference G-code; every reference
// file saved unedited gives back its bytes; every invalid case typed through the forms shows the
// engine's exact message at its field; layer edits and undo/redo change the plan as the engine
// says; axe-core finds nothing serious with each form open; the reducing cone and the vessel
// examples built through the forms (domes included) plan to the examples' own G-code.

import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { checkPlan } from '../engine/plan/index.ts';
import { planningFieldOf } from '../engine/wind/diagnostics.ts';
import { parseWindText, windJsonSchema } from '../engine/wind/index.ts';
import { REFERENCE_ROOT } from '../reference/paths.ts';
import { main } from '../server/cli/main.ts';
import { recordingIo } from '../server/testing/cli-io.ts';
import { type Core, startCore } from '../server/testing/core.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { readmeScreenshot } from './support/screenshots.ts';

const cases = readdirSync(REFERENCE_ROOT).filter((name) => !name.includes('.'));
const valid = cases.filter((name) => readdirSync(join(REFERENCE_ROOT, name)).includes('expected-xab.gcode'));
const invalid = cases.filter((name) => name.startsWith('conf_invalid_'));

// axe-core is injected as a script, which the page's CSP would refuse.
test.use({ bypassCSP: true });

let core: Core;
test.beforeAll(async () => {
  core = await startCore();
});
test.afterAll(async () => {
  expect(await core.stop()).toBe(0);
});

type Json = Record<string, unknown>;
const schema = windJsonSchema() as { $defs: Record<string, { properties: Record<string, Json> }> };

/** A control's accessible name, read from the engine's schema as a user would read the form. */
function labelOf(model: string, key: string): string {
  const property = schema.$defs[model]?.properties[key];
  const title = property?.title as string;
  const unit = property?.['x-unit'] as string | undefined;
  return unit ? `${title} (${unit})` : title;
}

const LAYER_MODELS: Record<string, string> = {
  hoop: 'HoopLayer',
  helical: 'HelicalLayer',
  skip: 'SkipLayer',
};

async function openDesign(page: Page): Promise<void> {
  await page.goto(`${core.lan}/winding`);
  await page.getByRole('tab', { name: 'Design' }).click();
}

async function newDefinition(page: Page, template = 'Blank definition'): Promise<void> {
  await page.getByLabel('Start from').selectOption({ label: template });
  await page.getByRole('button', { name: 'New definition' }).click();
}

/** Sets a field the way its control takes it: a checkbox, a text box or a spinbutton (by the schema's type). */
async function setField(scope: Locator | Page, model: string, key: string, value: unknown): Promise<void> {
  const name = labelOf(model, key);
  const type = schema.$defs[model]?.properties[key]?.type;
  if (type === 'boolean') await scope.getByRole('checkbox', { name }).setChecked(Boolean(value));
  else if (type === 'string') await scope.getByRole('textbox', { name, exact: true }).fill(String(value));
  else await scope.getByRole('spinbutton', { name, exact: true }).fill(String(value));
}

/** Types a definition into the forms of a blank definition, field by field and layer by layer. */
async function typeDefinition(page: Page, definition: Json): Promise<void> {
  if ('schemaVersion' in definition)
    await setField(page, 'WindDefinition', 'schemaVersion', definition.schemaVersion);
  for (const [model, section] of [
    ['MandrelParameters', 'mandrelParameters'],
    ['TowParameters', 'towParameters'],
  ] as const) {
    for (const [key, value] of Object.entries((definition[section] ?? {}) as Json))
      await setField(page, model, key, value);
  }
  if ('defaultFeedRate' in definition)
    await setField(page, 'WindDefinition', 'defaultFeedRate', definition.defaultFeedRate);
  const layers = (definition.layers ?? []) as Json[];
  for (const [i, layer] of layers.entries()) {
    const kind = layer.windType as string;
    await page.getByRole('button', { name: `Add ${kind} layer` }).click();
    const item = page.getByRole('listitem', { name: `Layer ${i + 1} (${kind})` });
    for (const [key, value] of Object.entries(layer)) {
      if (key === 'windType') continue;
      await setField(item, LAYER_MODELS[kind] as string, key, value);
    }
  }
}

async function savedBytes(page: Page, button = 'Save definition'): Promise<Buffer> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: button }).click();
  return readFile(await (await download).path());
}

async function towpath(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = recordingIo();
  const code = await main(argv, io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}

test('every valid reference case built from a new definition through the forms plans to the reference G-code', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dir = await mkdtemp(join(tmpdir(), 'towpath-design-'));
  await openDesign(page);
  for (const name of valid) {
    await test.step(name, async () => {
      await newDefinition(page);
      const definition = JSON.parse(readFileSync(join(REFERENCE_ROOT, name, 'input.wind'), 'utf8')) as Json;
      await typeDefinition(page, definition);
      await expect(page.getByTestId('design-errors')).toHaveCount(0);
      const saved = join(dir, `${name}.wind`);
      await writeFile(saved, await savedBytes(page));
      expect(await towpath('validate', saved)).toMatchObject({ code: 0 });
      const output = join(dir, `${name}.gcode`);
      expect(await towpath('plan', saved, '--output', output)).toMatchObject({ code: 0 });
      const expected = readFileSync(join(REFERENCE_ROOT, name, 'expected-xab.gcode'));
      expect((await readFile(output)).equals(expected)).toBe(true);
    });
  }
});

test('a reference file opened and saved without an edit gives back the same bytes', async ({ page }) => {
  await openDesign(page);
  for (const name of cases) {
    const path = join(REFERENCE_ROOT, name, 'input.wind');
    await page.getByTestId('design-file-input').setInputFiles(path);
    await expect(page.getByTestId('design-name')).toHaveText('input.wind');
    const bytes = await savedBytes(page);
    expect(bytes.equals(readFileSync(path)), name).toBe(true);
  }
  await expect(page).not.toHaveTitle(/unsaved/);

  // A definition dropped on the Design tab opens there for editing.
  const text = readFileSync(join(REFERENCE_ROOT, 'conf_valid_skip', 'input.wind'), 'utf8');
  const dataTransfer = await page.evaluateHandle((content) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([content], 'dropped.wind'));
    return transfer;
  }, text);
  await page.locator('section.winding').dispatchEvent('drop', { dataTransfer });
  await expect(page.getByTestId('design-name')).toHaveText('dropped.wind');
  await expect(page.getByRole('listitem', { name: 'Layer 1 (skip)' })).toBeVisible();
});

test('each invalid reference case typed through the forms shows the exact message at its field', async ({
  page,
}) => {
  // Each case starts a new definition over the last one's unsaved edits.
  page.on('dialog', (dialog) => void dialog.accept());
  await openDesign(page);
  for (const name of invalid) {
    await test.step(name, async () => {
      await newDefinition(page);
      const definition = JSON.parse(readFileSync(join(REFERENCE_ROOT, name, 'input.wind'), 'utf8')) as Json;
      await typeDefinition(page, definition);
      const { error } = JSON.parse(readFileSync(join(REFERENCE_ROOT, name, 'expected.json'), 'utf8')) as {
        error: { level: string; detail: string };
      };
      if (error.level === 'planning') {
        // `Layer 1: wind angle 95.0° …`: the message sits at the field its text is about.
        const layer = Number(/^Layer (\d+):/.exec(error.detail)?.[1]);
        const kind = (definition.layers as Json[])[layer - 1]?.windType as string;
        const key = planningFieldOf(error.detail) as string;
        const item = page.getByRole('listitem', { name: `Layer ${layer} (${kind})` });
        const box = item.getByRole('spinbutton', {
          name: labelOf(LAYER_MODELS[kind] as string, key),
          exact: true,
        });
        await expect(box).toHaveAccessibleDescription(new RegExp(literally(error.detail)));
        await expect(box).toHaveAttribute('aria-invalid', 'true');
      } else {
        // The §2.7 report: `{loc}` then `  {msg} [type=…]` per problem.
        const lines = error.detail.split('\n').slice(1);
        for (let k = 0; k < lines.length; k += 2) {
          const loc = (lines[k] as string).split('.');
          const message = (lines[k + 1] as string).trim().replace(/ \[type=[a-z_]+\]$/, '');
          const key = loc.at(-1) as string;
          const model =
            loc.length === 1
              ? 'WindDefinition'
              : loc[0] === 'mandrelParameters'
                ? 'MandrelParameters'
                : 'TowParameters';
          const box = page.getByRole(key === 'schemaVersion' ? 'textbox' : 'spinbutton', {
            name: labelOf(model, key),
            exact: true,
          });
          await expect(box).toHaveAccessibleDescription(new RegExp(literally(message)));
        }
      }
    });
  }
  // An emptied field is the engine's "Field required", and the editor carries on.
  const diameter = page.getByRole('spinbutton', { name: 'Diameter (mm)', exact: true });
  await diameter.fill('');
  await expect(diameter).toHaveAccessibleDescription(/Field required/);
  await diameter.fill('-3');
  await expect(diameter).toHaveAccessibleDescription(/Input should be greater than 0/);
  await diameter.fill('70');
  await expect(diameter).not.toHaveAccessibleDescription(/Input should/);
});

function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The layer table's rows (the plan the page shows). */
async function shownLayers(page: Page): Promise<unknown[]> {
  const rows = page.getByRole('table', { name: 'Layers' }).locator('tbody tr');
  return (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-layer')))).map((row) =>
    JSON.parse(row ?? 'null'),
  );
}

test('reorder, duplicate, delete, undo and redo change the plan as the engine plans the edited definition', async ({
  page,
}) => {
  test.setTimeout(60_000);
  await openDesign(page);
  await newDefinition(page, 'Example: hoop-only cylinder');
  const base = JSON.parse(readFileSync('resources/examples/simple-cylinder.wind', 'utf8')) as Json;
  const hoop = { windType: 'hoop', terminal: false };
  const skip = { windType: 'skip', mandrelRotation: 90 };
  const planOf = (layers: Json[]) =>
    checkPlan(parseWindText(JSON.stringify({ ...base, layers }), 'x.wind')).layers;
  const items = page.getByRole('list', { name: 'Layers' }).getByRole('listitem');
  const expectLayers = async (layers: Json[]) => {
    const names = layers.map((layer, i) => `Layer ${i + 1} (${layer.windType})`);
    await expect
      .poll(() => items.evaluateAll((lis) => lis.map((li) => li.getAttribute('aria-label'))))
      .toEqual(names);
    await expect.poll(() => shownLayers(page)).toEqual(planOf(layers));
  };

  await expectLayers([hoop]);
  await page.getByRole('button', { name: 'Add skip layer' }).click();
  await expectLayers([hoop, skip]);
  await page.getByRole('button', { name: 'Move layer 2 up' }).click();
  await expectLayers([skip, hoop]);
  await page.getByRole('listitem', { name: 'Layer 1 (skip)' }).focus();
  await page.keyboard.press('Alt+ArrowDown');
  await expectLayers([hoop, skip]);
  await page.getByRole('button', { name: 'Duplicate layer 1' }).click();
  await expectLayers([hoop, hoop, skip]);
  await page
    .getByRole('listitem', { name: 'Layer 2 (hoop)' })
    .getByRole('checkbox', { name: 'Terminal' })
    .check();
  // A layer after a terminal hoop is flagged, and the planner refuses it at its layer.
  await expect(page.getByTestId('after-terminal')).toHaveCount(1);
  await expect(page.getByRole('listitem', { name: 'Layer 3 (skip)' })).toContainText(
    'Layer 3: terminal layer must be the final entry in the definition',
  );
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByTestId('after-terminal')).toHaveCount(0);
  await page.getByRole('button', { name: 'Delete layer 2' }).click();
  await expectLayers([hoop, skip]);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expectLayers([hoop, hoop, skip]);
  await page.getByRole('button', { name: 'Redo' }).click();
  await expectLayers([hoop, skip]);
  await page
    .getByRole('listitem', { name: 'Layer 2 (skip)' })
    .dragTo(page.getByRole('listitem', { name: 'Layer 1 (hoop)' }));
  await expectLayers([skip, hoop]);
  // The keyboard's undo and redo go through the same history as the buttons.
  await page.getByRole('heading', { name: 'Layers', exact: true }).click();
  await page.keyboard.press('Control+z');
  await expectLayers([hoop, skip]);
  await page.keyboard.press('Control+Shift+z');
  await expectLayers([skip, hoop]);
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Control+y');
  await expectLayers([skip, hoop]);
  // A typed value is one undo step, however many keystrokes it took.
  const feed = page.getByRole('spinbutton', { name: 'Feed rate (mm/min)' });
  await feed.fill('');
  await feed.pressSequentially('1200');
  await expect(feed).toHaveValue('1200');
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(feed).toHaveValue('9000');

  // The Source tab edits the same working copy, and its Ctrl+Z goes through the same history.
  await page.getByRole('tab', { name: 'Source' }).click();
  const source = page.getByRole('textbox', { name: 'Definition source' });
  await source.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(JSON.stringify({ ...base, layers: [skip, skip, skip] }));
  await expect.poll(() => shownLayers(page)).toEqual(planOf([skip, skip, skip]));
  await page.keyboard.press('Control+z');
  await expect.poll(() => shownLayers(page)).toEqual(planOf([skip, hoop]));
  await page.getByRole('tab', { name: 'Forms' }).click();
  await expectLayers([skip, hoop]);
  await page.getByRole('button', { name: 'Redo' }).click();
  await expectLayers([skip, skip, skip]);
});

test('unsaved changes are marked in the title and guarded on reload and open', async ({ page }) => {
  await openDesign(page);
  await newDefinition(page, 'Example: hoop-only cylinder');
  await expect(page).toHaveTitle(/^simple-cylinder\.wind — Towpath$/);
  await page.getByRole('spinbutton', { name: 'Diameter (mm)', exact: true }).fill('80');
  await expect(page).toHaveTitle(/unsaved/);

  // Opening another definition asks first; declining keeps the edit.
  const asked: string[] = [];
  page.once('dialog', (dialog) => {
    asked.push(dialog.message());
    void dialog.dismiss();
  });
  await page
    .getByTestId('design-file-input')
    .setInputFiles(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'));
  await expect.poll(() => asked).toEqual(['Discard the unsaved changes to simple-cylinder.wind?']);
  await expect(page.getByRole('spinbutton', { name: 'Diameter (mm)', exact: true })).toHaveValue('80');

  // Reloading asks too (beforeunload).
  const unload = new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.type());
      void dialog.dismiss();
    }),
  );
  void page.reload().catch(() => {});
  expect(await unload).toBe('beforeunload');

  // Ctrl+S saves (a download in a browser) and the marker goes.
  const download = page.waitForEvent('download');
  await page.keyboard.press('Control+s');
  const saved = JSON.parse(await readFile(await (await download).path(), 'utf8'));
  expect(saved.mandrelParameters.diameter).toBe(80);
  await expect(page).toHaveTitle(/^simple-cylinder\.wind — Towpath$/);
});

test('the Design view with each form open has no serious accessibility violations', async ({ page }) => {
  test.setTimeout(60_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openDesign(page);
  await expect(await seriousAxeViolations(page)).toEqual([]);
  await newDefinition(page, 'Example: multi-layer tube');
  await expect(page.getByRole('list', { name: 'Layers' }).getByRole('listitem')).toHaveCount(5);
  await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('view3d')).not.toHaveAttribute('data-drawn-vertices', '0');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: readmeScreenshot('design-studio.png') });
  expect(await seriousAxeViolations(page)).toEqual([]);
  // The hint of a layer whose pattern number does not divide its circuits.
  await page
    .getByRole('listitem', { name: 'Layer 2 (helical)' })
    .getByRole('spinbutton', { name: 'Pattern number' })
    .fill('4');
  await expect(page.getByTestId('divides-not')).toBeVisible();
  expect(await seriousAxeViolations(page)).toEqual([]);
  // Schema 1.1's geodesic layer form: each auto-able field an Auto checkbox beside its spinbutton.
  await page.getByRole('button', { name: 'Add geodesic layer' }).click();
  const geodesic = page.getByRole('listitem', { name: 'Layer 6 (geodesic)' });
  await expect(geodesic.getByRole('checkbox', { name: 'Circuits: Auto' })).toBeChecked();
  await expect(geodesic.getByRole('spinbutton', { name: 'Circuits', exact: true })).toBeDisabled();
  expect(await seriousAxeViolations(page)).toEqual([]);
  await page.getByRole('tab', { name: 'Source' }).click();
  await expect(page.getByRole('textbox', { name: 'Definition source' })).toBeVisible();
  expect(await seriousAxeViolations(page)).toEqual([]);
});

/** Plans a file with `towpath plan` into `output` and gives back the G-code's bytes. */
async function planned(path: string, output: string): Promise<Buffer> {
  expect(await towpath('plan', path, '--output', output)).toMatchObject({ code: 0 });
  return readFile(output);
}

test('the reducing cone and the vessel built through the forms plan as their examples do; the dome form is axe-clean', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dir = await mkdtemp(join(tmpdir(), 'towpath-design-vessel-'));
  await openDesign(page);
  const version = page.getByRole('textbox', {
    name: labelOf('WindDefinition', 'schemaVersion'),
    exact: true,
  });

  await test.step('reducing cone', async () => {
    const example = 'resources/examples/reducing-cone.wind';
    await newDefinition(page);
    await expect(version).toHaveValue('1.0');
    // No schemaVersion typed: the end diameter declares 1.1 itself.
    const { schemaVersion: _, ...definition } = JSON.parse(readFileSync(example, 'utf8')) as Json;
    await typeDefinition(page, definition);
    await expect(version).toHaveValue('1.1');
    await expect(page.getByTestId('design-errors')).toHaveCount(0);
    const saved = join(dir, 'reducing-cone.wind');
    await writeFile(saved, await savedBytes(page));
    expect(
      (await planned(saved, `${saved}.gcode`)).equals(await planned(example, `${saved}.example.gcode`)),
    ).toBe(true);
  });

  await test.step('vessel', async () => {
    const example = 'resources/examples/vessel.wind';
    await newDefinition(page);
    for (const [key, value] of [
      ['diameter', 150],
      ['windLength', 300],
    ] as const)
      await setField(page, 'MandrelParameters', key, value);
    await page.getByRole('radio', { name: 'The same dome at both ends' }).click();
    await expect(version).toHaveValue('1.1');
    const dome = page.getByRole('group', { name: 'Dome at both ends' });
    await dome.getByRole('combobox', { name: labelOf('Dome', 'type') }).selectOption('hemispherical');
    await expect(dome.getByTestId('field-error')).toHaveText('Field required');
    await setField(dome, 'Dome', 'polarOpeningDiameter', 40);
    await setField(page, 'TowParameters', 'width', 6);
    await setField(page, 'TowParameters', 'thickness', 0.3);
    await setField(page, 'WindDefinition', 'defaultFeedRate', 6000);
    const machine = page.getByRole('group', { name: 'Machine (delivery eye)' });
    await setField(machine, 'Machine', 'carriageMin', -100);
    await setField(machine, 'Machine', 'carriageMax', 400);
    for (const [i, kind] of (['hoop', 'geodesic', 'hoop'] as const).entries()) {
      await page.getByRole('button', { name: `Add ${kind} layer` }).click();
      if (kind === 'geodesic')
        await setField(
          page.getByRole('listitem', { name: `Layer ${i + 1} (geodesic)` }),
          'GeodesicLayer',
          'stationSpacingMM',
          1,
        );
    }
    await expect(page.getByTestId('design-errors')).toHaveCount(0);
    await expect(page.getByRole('table', { name: 'Layers' })).toBeVisible({ timeout: 60_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    const saved = join(dir, 'vessel.wind');
    await writeFile(saved, await savedBytes(page));
    expect(
      (await planned(saved, `${saved}.gcode`)).equals(await planned(example, `${saved}.example.gcode`)),
    ).toBe(true);
  });
});
