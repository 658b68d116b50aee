// Machine profiles and the job history in Chromium, against a real core and the fake Marlin on a
// socat pseudo-terminal pair: a profile made in the dialog, a connection made with it, a jog past
// its soft limit refused with nothing sent, jobs that complete and are cancelled listed newest
// first, the outcome filter, the CSV export, editing and deleting the profile.
import { expect, test } from '@playwright/test';
import { axeViolations } from './support/axe.ts';
import { machineBench } from './support/machine-bench.ts';
import { readmeScreenshot } from './support/screenshots.ts';

// Slow enough that a job is still running when the test cancels it.
const bench = machineBench(3);

test.describe('machine profiles and the job history', () => {
  test.use({ bypassCSP: true });

  test('a profile governs the connection; jobs are listed newest first, filtered and exported', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.goto(`${bench.core.lan}/winding`);
    const state = page.getByTestId('machine-state');
    await expect(state).toHaveAttribute('data-state', 'idle');
    const history = page.getByRole('table', { name: 'Job history' });
    await expect(history).toContainText('No jobs yet.');

    // A new profile from the dialog: the carriage runs 0…100 mm at up to 5000 mm/min, B cannot home.
    await page.getByRole('button', { name: 'New profile' }).click();
    const dialog = page.getByRole('dialog', { name: 'New profile' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Winder 1');
    await dialog.getByRole('textbox', { name: 'Serial port' }).fill(bench.port);
    await dialog.getByRole('spinbutton', { name: 'X minimum' }).fill('0');
    await dialog.getByRole('spinbutton', { name: 'X maximum', exact: true }).fill('100');
    await dialog.getByRole('spinbutton', { name: 'X maximum feed (per minute)' }).fill('5000');
    await dialog.getByRole('checkbox', { name: 'B can home' }).uncheck();
    await dialog.getByRole('spinbutton', { name: 'Eye radius (mm)' }).fill('120');
    // A limit the wrong way round is refused by the door and shown in the dialog; nothing is saved.
    await dialog.getByRole('spinbutton', { name: 'B minimum' }).fill('90');
    await dialog.getByRole('spinbutton', { name: 'B maximum', exact: true }).fill('-90');
    await dialog.getByRole('button', { name: 'Save profile' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(
      'Invalid request body: axes.B.max: min must be less than max',
    );
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('spinbutton', { name: 'B minimum' }).fill('-90');
    await dialog.getByRole('spinbutton', { name: 'B maximum', exact: true }).fill('90');
    await dialog.getByRole('button', { name: 'Save profile' }).click();
    await expect(dialog).toHaveCount(0);

    const picker = page.getByRole('combobox', { name: 'Machine profile' });
    await expect(picker.locator('option:checked')).toHaveText('Winder 1');
    await expect(page.getByRole('combobox', { name: 'Serial port' })).toHaveValue(bench.port);
    await expect(page.getByRole('combobox', { name: 'Serial port' })).toBeDisabled();

    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(state).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
    // The pad offers homing only for the axes the profile says can home.
    await expect(page.getByRole('button', { name: 'Home B' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Home X' })).toBeEnabled();
    await page.getByRole('button', { name: 'Home all' }).click();
    const position = page.getByTestId('position');
    await expect(position).toHaveText('Position: X 0.00 mm · A 0.00 ° · B 0.00 °');
    expect(bench.marlin.fake.commands).toEqual(['G28 X A', 'M114']);

    // To the limit, then one step past it: refused with the reason, and the fake receives nothing.
    await page.getByRole('combobox', { name: 'Jog step' }).selectOption('100');
    await page.getByRole('combobox', { name: 'Jog feed' }).selectOption('3000');
    await page.getByRole('button', { name: 'Jog X+' }).click();
    await expect(position).toHaveText('Position: X 100.00 mm · A 0.00 ° · B 0.00 °');
    const sent = bench.marlin.fake.commands.length;
    await page.getByRole('button', { name: 'Jog X+' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      "Jog refused: X would go to 200, above the soft limit 100 of profile 'Winder 1'; nothing was sent",
    );
    expect(bench.marlin.fake.commands).toHaveLength(sent);

    // A job that completes, one refused for leaving the limits, and one cancelled.
    const inside = Array.from({ length: 40 }, (_, i) => `G1 X${i} A${i * 9} F3000`).join('\n');
    const done = await page.request.post(`${bench.core.lan}/api/machine/job?name=inside.gcode`, {
      data: { gcode: inside },
    });
    expect(done.status()).toBe(202);
    await expect(state).toHaveAttribute('data-state', 'completed', { timeout: 20_000 });
    const outside = await page.request.post(`${bench.core.lan}/api/machine/job?name=outside.gcode`, {
      data: { gcode: 'G1 X50 F3000\nG1 X150' },
    });
    expect([outside.status(), (await outside.json()).detail]).toEqual([
      409,
      "Line 2: 'G1 X150' moves X to 150, above the soft limit 100 of profile 'Winder 1'; nothing was streamed",
    ]);
    const long = Array.from({ length: 3000 }, (_, i) => `G1 X${i % 100} A${i} F3000`).join('\n');
    expect(
      (
        await page.request.post(`${bench.core.lan}/api/machine/job?name=long.gcode`, {
          data: { gcode: long },
        })
      ).status(),
    ).toBe(202);
    await expect(state).toHaveAttribute('data-state', 'streaming');
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await expect(state).toHaveAttribute('data-state', 'cancelled');

    const rows = history.locator('tbody tr');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText('long.gcode');
    await expect(rows.nth(0)).toContainText('cancelled');
    await expect(rows.nth(0)).toContainText('Winder 1');
    await expect(rows.nth(1)).toContainText('inside.gcode');
    await expect(rows.nth(1)).toContainText('40 sent · 40 done of 40');
    await expect(rows.nth(1)).toContainText('completed');

    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('completed');
    await expect(rows).toHaveCount(1);
    await expect(rows.nth(0)).toContainText('inside.gcode');
    const csv = await page.request.get(
      `${bench.core.lan}${await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')}`,
    );
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/,inside\.gcode,[0-9a-f]{64},false,Winder 1,.*,40,40,40,40,completed,,$/);
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('');
    await expect(rows).toHaveCount(2);

    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: readmeScreenshot('machine-history.png'), fullPage: true });
    // At a phone's width the history is still axe-clean and each row still shows its outcome.
    await page.setViewportSize({ width: 390, height: 1400 });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: test.info().outputPath('machine-history-narrow.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 1400 });

    // Edited, the profile keeps governing; it cannot be deleted while connected with it.
    await page.getByRole('button', { name: 'Edit profile' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit profile Winder 1' });
    await edit.getByRole('textbox', { name: 'Name' }).fill('Winder 1 (bay 2)');
    await edit.getByRole('button', { name: 'Save profile' }).click();
    await expect(edit).toHaveCount(0);
    await expect(picker.locator('option:checked')).toHaveText('Winder 1 (bay 2)');
    await expect(page.getByRole('button', { name: 'Delete profile' })).toBeDisabled();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await expect(state).toHaveAttribute('data-state', 'idle');
    await page.getByRole('button', { name: 'Delete profile' }).click();
    await expect(picker.locator('option')).toHaveText(['None (settings below)']);
    await expect(page.getByRole('combobox', { name: 'Serial port' })).toBeEnabled();
  });
});
