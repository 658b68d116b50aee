// The machine panel's manual control in Chromium against a real core and the fake Marlin on a
// socat pseudo-terminal pair, which follows its axes and answers M114: home, jog by button and by
// key, set zero, motors off, the console with its history, and everything refused during a job.
import { expect, test } from '@playwright/test';
import { axeViolations } from './support/axe.ts';
import { machineBench } from './support/machine-bench.ts';
import { readmeScreenshot } from './support/screenshots.ts';

// A slow controller, so a job is still running while the test tries the jog pad.
const bench = machineBench(4);

const MINUS = '\u2212';

test.describe('manual control', () => {
  test.use({ bypassCSP: true });

  test('home, jog by button and key, set zero, motors off, the console, and no jogging during a job', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 1200 });
    await page.goto(`${bench.core.lan}/winding`);
    const state = page.getByTestId('machine-state');
    await expect(state).toHaveAttribute('data-state', 'idle');
    const off = page.getByTestId('jog-disabled');
    await expect(off).toHaveText('Connect to the controller to use manual control.');
    await expect(page.getByRole('button', { name: 'Home all' })).toBeDisabled();

    await page.getByRole('combobox', { name: 'Serial port' }).fill(bench.port);
    await page.getByRole('combobox', { name: 'Controller axes' }).selectOption('xab');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(state).toHaveAttribute('data-state', 'ready', { timeout: 20_000 });
    await expect(off).toHaveCount(0);

    const position = page.getByTestId('position');
    await expect(position).toHaveText('Position: not read yet');
    await page.getByRole('button', { name: 'Home all' }).click();
    await expect(position).toHaveText('Position: X 0.00 mm · A 0.00 ° · B 0.00 °');
    expect(bench.marlin.fake.commands).toEqual(['G28', 'M114']);

    await page.getByRole('combobox', { name: 'Jog step' }).selectOption('10');
    await page.getByRole('combobox', { name: 'Jog feed' }).selectOption('3000');
    await page.getByRole('button', { name: 'Jog X+' }).click();
    await expect(position).toHaveText('Position: X 10.00 mm · A 0.00 ° · B 0.00 °');
    expect(bench.marlin.fake.commands.slice(2)).toEqual(['G91', 'G1 X10 F3000', 'G90', 'M114']);

    // Keys while the pad has focus: ↑ jogs A, Page Down jogs B, ← jogs X.
    await page.getByTestId('jog-pad').focus();
    await page.keyboard.press('ArrowUp');
    await expect(position).toHaveText('Position: X 10.00 mm · A 10.00 ° · B 0.00 °');
    await page.keyboard.press('PageDown');
    await expect(position).toHaveText('Position: X 10.00 mm · A 10.00 ° · B -10.00 °');
    await page.getByRole('combobox', { name: 'Jog step' }).selectOption('0.1');
    await page.getByRole('button', { name: `Jog X${MINUS}` }).focus();
    await page.keyboard.press('ArrowLeft');
    await expect(position).toHaveText('Position: X 9.90 mm · A 10.00 ° · B -10.00 °');
    expect(bench.marlin.fake.commands.filter((c) => c.startsWith('G1 '))).toEqual([
      'G1 X10 F3000',
      'G1 A10 F3000',
      'G1 B-10 F3000',
      'G1 X-0.1 F3000',
    ]);
    // Every jog button by its name, one after the other: each sends its own move.
    const moves = () => bench.marlin.fake.commands.filter((c) => c.startsWith('G1 ')).slice(4);
    const jogs: [string, string][] = [
      ['Jog X+', 'G1 X0.1 F3000'],
      [`Jog X${MINUS}`, 'G1 X-0.1 F3000'],
      ['Jog A+', 'G1 A0.1 F3000'],
      [`Jog A${MINUS}`, 'G1 A-0.1 F3000'],
      ['Jog B+', 'G1 B0.1 F3000'],
      [`Jog B${MINUS}`, 'G1 B-0.1 F3000'],
    ];
    for (const [i, [name]] of jogs.entries()) {
      await page.getByRole('button', { name, exact: true }).click();
      await expect.poll(() => moves().length, name).toBe(i + 1);
    }
    expect(moves()).toEqual(jogs.map(([, move]) => move));
    await expect(position).toHaveText('Position: X 9.90 mm · A 10.00 ° · B -10.00 °');

    await page.getByRole('button', { name: 'Set zero' }).click();
    await expect(position).toHaveText('Position: X 0.00 mm · A 0.00 ° · B 0.00 °');
    await page.getByRole('button', { name: 'Motors off' }).click();
    await expect.poll(() => bench.motion.motorsOff).toBe(true);
    expect(bench.marlin.fake.commands).toContain('G92 X0 A0 B0');

    // The console: the answer shows in the machine log; ↑ recalls the line.
    const command = page.getByRole('textbox', { name: 'Command' });
    const log = page.getByRole('log', { name: 'Machine log' });
    await command.fill('M115');
    await page.getByRole('button', { name: 'Send command' }).click();
    await expect(log).toContainText('FIRMWARE_NAME:Marlin 2.1.2.5 (Towpath fake)');
    await expect(command).toHaveValue('');
    await command.fill('G1 X5 A45 F500');
    await command.press('Enter');
    await expect(position).toHaveText('Position: X 5.00 mm · A 45.00 ° · B 0.00 °');
    await command.press('ArrowUp');
    await expect(command).toHaveValue('G1 X5 A45 F500');
    await command.press('ArrowUp');
    await expect(command).toHaveValue('M115');
    await command.fill('N7 G1 X1');
    await command.press('Enter');
    await expect(page.getByRole('alert')).toHaveText(
      'Line numbers and checksums are added by Towpath; send the command alone',
    );
    await expect(command).toHaveValue('N7 G1 X1');
    expect(bench.marlin.fake.commands).not.toContain('N7 G1 X1');

    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: readmeScreenshot('machine-manual.png'), fullPage: true });

    // A job holds the machine: the pad and the console are off with the reason, the routes say 409,
    // and the e-stop stays one click away.
    const gcode = Array.from({ length: 3000 }, (_, i) => `G0 X${(i % 100) + 1}`).join('\n');
    const started = await page.request.post(`${bench.core.lan}/api/machine/job`, { data: { gcode } });
    expect(started.status()).toBe(202);
    await expect(state).toHaveAttribute('data-state', 'streaming');
    await expect(off).toHaveText('Manual control is off while a job runs.');
    await expect(position).toHaveText('Position: not read yet');
    for (const name of [`Jog A${MINUS}`, 'Jog B+', 'Home all', 'Set zero', 'Motors off', 'Read position']) {
      await expect(page.getByRole('button', { name })).toBeDisabled();
    }
    await expect(command).toBeDisabled();
    const refused = await page.request.post(`${bench.core.lan}/api/machine/jog`, {
      data: { axis: 'X', step: 1, feed: 100 },
    });
    expect([refused.status(), (await refused.json()).detail]).toEqual([
      409,
      'Manual control is refused while a job is running',
    ]);
    await expect(page.getByRole('button', { name: 'Emergency stop' })).toBeEnabled();
    expect(await axeViolations(page)).toEqual([]);

    // Cancelled, the job ends and the position is read again: where the fake's axes stand.
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await expect(state).toHaveAttribute('data-state', 'cancelled');
    await expect(off).toHaveCount(0);
    await expect
      .poll(async () => await position.textContent())
      .toBe(`Position: X ${(bench.motion.position.get('X') ?? 0).toFixed(2)} mm · A 45.00 ° · B 0.00 °`);
    expect(bench.marlin.fake.commands.at(-1)).toBe('M114');
  });
});
