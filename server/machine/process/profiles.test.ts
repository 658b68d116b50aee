// Machine profiles over the machine door (real HTTP on loopback, a real SQLite file, the fake
// Marlin on a socat pseudo-terminal pair): CRUD with the documented errors for bad input, and the
// profile's limits refusing jogs and programs before a single line reaches the controller.
import { afterEach, describe, expect, it } from 'vitest';
import { profilePath } from '../../../engine/machine/contract.ts';
import { type DoorBench, startDoorBench } from '../testing/door-bench.ts';

const benches: DoorBench[] = [];
afterEach(async () => {
  for (const bench of benches.splice(0)) await bench.dispose();
});

async function bench() {
  const b = await startDoorBench();
  benches.push(b);
  return b;
}

/** A winder whose carriage runs 0…100 mm, whose mandrel turns freely and whose head tilts ±90°. */
function winder(port: string) {
  return {
    name: 'Winder 1',
    port,
    baudRate: 250000,
    axisFormat: 'xab',
    axes: {
      X: { min: 0, max: 100, maxFeed: 5000, homing: true },
      A: { min: null, max: null, maxFeed: 20000, homing: true },
      B: { min: -90, max: 90, maxFeed: 3000, homing: false },
    },
    machine: { eyeRadius: 120, carriageMin: 0, carriageMax: 100, eyeClearance: 10 },
    queueDepth: 16,
  };
}

describe('machine profiles', () => {
  it('are created, listed, read, replaced and deleted, and survive a reopen of the database', async () => {
    const b = await bench();
    const created = await b.call('POST', '/api/machine/profiles', winder('/dev/ttyUSB0'));
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(created.body).toEqual({ id, ...winder('/dev/ttyUSB0') });

    // Defaults: baud 250000, xab, unlimited axes without homing, queue depth 20.
    const bare = await b.call('POST', '/api/machine/profiles', { name: 'Bench rig', port: '/dev/ttyACM0' });
    expect(bare.body).toEqual({
      id: expect.any(Number),
      name: 'Bench rig',
      port: '/dev/ttyACM0',
      baudRate: 250000,
      axisFormat: 'xab',
      axes: Object.fromEntries(
        ['X', 'A', 'B'].map((axis) => [axis, { min: null, max: null, maxFeed: null, homing: false }]),
      ),
      machine: {},
      queueDepth: 20,
    });

    const list = await b.call('GET', '/api/machine/profiles');
    expect((list.body.profiles as { name: string }[]).map((p) => p.name)).toEqual(['Bench rig', 'Winder 1']);
    expect((await b.call('GET', profilePath(id))).body).toEqual(created.body);

    const changed = { ...winder('/dev/ttyUSB1'), name: 'Winder 1 (rebuilt)', queueDepth: 8 };
    const replaced = await b.call('PUT', profilePath(id), changed);
    expect(replaced).toMatchObject({ status: 200, body: { id, ...changed } });
    expect((await b.call('GET', profilePath(id))).body).toEqual({ id, ...changed });

    // A second store on the same file reads what the first wrote.
    const { ProfileStore } = await import('./profiles.ts');
    expect(new ProfileStore(b.database).get(id)).toEqual({ id, ...changed });

    expect((await b.call('DELETE', profilePath(id), {})).status).toBe(204);
    expect(await b.call('DELETE', profilePath(id), {})).toMatchObject({
      status: 404,
      body: { detail: `No machine profile with id ${id}` },
    });
    expect((await b.call('GET', '/api/machine/profiles')).body.profiles).toHaveLength(1);
  });

  it('refuses bad input with the documented errors and leaves stored profiles as they were', async () => {
    const b = await bench();
    const first = await b.call('POST', '/api/machine/profiles', winder('/dev/ttyUSB0'));
    const id = first.body.id as number;
    const base = winder('/dev/ttyUSB0');
    const cases: [string, string, unknown, number, string][] = [
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'winder 1' },
        409,
        "A machine profile named 'winder 1' already exists",
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: '  ' },
        400,
        'Invalid request body: name: must not be empty',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { port: '/dev/x' },
        400,
        'Invalid request body: name: Field required',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', port: 'a\u0000b' },
        400,
        'Invalid request body: port: must not contain NUL characters',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', baudRate: 12345 },
        400,
        'Invalid request body: baudRate: must be one of 9600, 19200, 38400, 57600, 115200, 230400, 250000, 460800, 500000, 921600, 1000000, 1500000, 2000000',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', axisFormat: 'xy' },
        400,
        'Invalid request body: axisFormat: must be one of xab, xyz',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', axes: { ...base.axes, X: { min: 100, max: 0 } } },
        400,
        'Invalid request body: axes.X.max: min must be less than max',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', axes: { ...base.axes, B: { maxFeed: 0 } } },
        400,
        'Invalid request body: axes.B.maxFeed: must be more than 0',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', queueDepth: -1 },
        400,
        'Invalid request body: queueDepth: must be 0 or more',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', queueDepth: 2.5 },
        400,
        'Invalid request body: queueDepth: must be a whole number',
      ],
      [
        'POST',
        '/api/machine/profiles',
        { ...base, name: 'B', machine: { eyeRadius: -5 } },
        400,
        'Invalid request body: machine.eyeRadius: must be more than 0',
      ],
      ['POST', '/api/machine/profiles', '{"name": "B", ', 400, 'Invalid JSON body'],
      ['PUT', profilePath(id), { ...base, name: '' }, 400, 'Invalid request body: name: must not be empty'],
      ['PUT', profilePath(9999), base, 404, 'No machine profile with id 9999'],
      [
        'PUT',
        '/api/machine/profiles/abc',
        base,
        400,
        "Invalid profile id 'abc': must be a positive whole number",
      ],
      [
        'GET',
        '/api/machine/profiles/0',
        undefined,
        400,
        "Invalid profile id '0': must be a positive whole number",
      ],
      ['DELETE', '/api/machine/profiles/77', {}, 404, 'No machine profile with id 77'],
    ];
    const second = await b.call('POST', '/api/machine/profiles', { ...base, name: 'Second' });
    cases.push([
      'PUT',
      profilePath(second.body.id as number),
      base,
      409,
      "A machine profile named 'Winder 1' already exists",
    ]);
    for (const [method, path, body, status, detail] of cases) {
      const answer = await b.call(method, path, body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status });
      expect(String(answer.body.detail)).toContain(detail);
    }
    // Nothing above changed what was stored.
    expect((await b.call('GET', profilePath(id))).body).toEqual({ id, ...base });
    expect((await b.call('GET', '/api/machine/profiles')).body.profiles).toHaveLength(2);
    expect(b.fake.commands).toEqual([]);
  });
});

describe('a connection made with a profile', () => {
  async function connected() {
    const b = await bench();
    const created = await b.call('POST', '/api/machine/profiles', winder(b.pair.near));
    const id = created.body.id as number;
    const connect = await b.call('POST', '/api/machine/connect', { profileId: id });
    expect(connect).toMatchObject({
      status: 200,
      body: {
        state: 'ready',
        port: b.pair.near,
        baudRate: 250000,
        axisFormat: 'xab',
        profile: { id, name: 'Winder 1' },
      },
    });
    return { b, id };
  }

  it('homes only the axes that can, and refuses jogs beyond the soft limits or the feed before sending anything', async () => {
    const { b, id } = await connected();
    const home = await b.call('POST', '/api/machine/home', {});
    expect(home.body.commands).toEqual(['G28 X A', 'M114']);
    expect(await b.call('POST', '/api/machine/home', { axis: 'B' })).toMatchObject({
      status: 400,
      body: { detail: "B cannot home in profile 'Winder 1' (no endstop set for it)" },
    });

    expect((await b.call('POST', '/api/machine/jog', { axis: 'X', step: 100, feed: 3000 })).status).toBe(200);
    expect(b.machine.status().position).toEqual({ x: 100, a: 0, b: 0 });
    const before = b.fake.commands.length;

    // At the 100 mm limit, 0.1 mm more is refused; so is a feed above the axis's maximum.
    expect(await b.call('POST', '/api/machine/jog', { axis: 'X', step: 0.1, feed: 3000 })).toEqual(
      expect.objectContaining({
        status: 409,
        body: {
          detail:
            "Jog refused: X would go to 100.1, above the soft limit 100 of profile 'Winder 1'; nothing was sent",
        },
      }),
    );
    expect(await b.call('POST', '/api/machine/jog', { axis: 'X', step: -10, feed: 6000 })).toEqual(
      expect.objectContaining({
        status: 400,
        body: { detail: "Jog feed 6000 is above the maximum feed of X (5000) in profile 'Winder 1'" },
      }),
    );
    expect((await b.call('POST', '/api/machine/jog', { axis: 'B', step: -100, feed: 1000 })).status).toBe(
      409,
    );
    // The fake received nothing for any refused jog.
    expect(b.fake.commands.length).toBe(before);

    // Within the limits it moves; the mandrel has none.
    expect((await b.call('POST', '/api/machine/jog', { axis: 'X', step: -100, feed: 5000 })).status).toBe(
      200,
    );
    expect((await b.call('POST', '/api/machine/jog', { axis: 'A', step: 100, feed: 20000 })).status).toBe(
      200,
    );
    expect(b.fake.commands.slice(before)).toEqual([
      'G91',
      'G1 X-100 F5000',
      'G90',
      'M114',
      'G91',
      'G1 A100 F20000',
      'G90',
      'M114',
    ]);

    // An edited profile governs the open connection at once; the one in use cannot be deleted.
    const narrower = winder(b.pair.near);
    await b.call('PUT', profilePath(id), {
      ...narrower,
      axes: { ...narrower.axes, A: { min: -50, max: 150, maxFeed: 20000, homing: true } },
    });
    const at = b.fake.commands.length;
    expect((await b.call('POST', '/api/machine/jog', { axis: 'A', step: 100, feed: 1000 })).status).toBe(409);
    expect(b.fake.commands.length).toBe(at);
    expect(await b.call('DELETE', profilePath(id), {})).toMatchObject({
      status: 409,
      body: { detail: 'This profile is in use by the open connection; disconnect first' },
    });
  });

  it('reads M114 and names the axes with the letters of an xyz profile', async () => {
    const b = await bench();
    const rig = { ...winder(b.pair.near), name: 'Three-axis rig', axisFormat: 'xyz' };
    const id = (await b.call('POST', '/api/machine/profiles', rig)).body.id as number;
    // The profile's axis format governs the connection, whatever the request says beside it.
    const connect = await b.call('POST', '/api/machine/connect', { profileId: id, axisFormat: 'xab' });
    expect(connect.body).toMatchObject({ state: 'ready', axisFormat: 'xyz', profile: { id } });
    expect((await b.call('POST', '/api/machine/home', {})).body.commands).toEqual(['G28 X Y', 'M114']);
    // The fake answers with all five letters: A and B read from Y and Z, not from its A and B.
    b.motion.position.set('A', 33);
    b.motion.position.set('B', 44);
    const jog = await b.call('POST', '/api/machine/jog', { axis: 'A', step: 10, feed: 1000 });
    expect(jog.body).toMatchObject({ status: { position: { x: 0, a: 10, b: 0 } } });
    expect((await b.call('POST', '/api/machine/jog', { axis: 'B', step: -10, feed: 1000 })).status).toBe(200);
    expect(b.machine.status().position).toEqual({ x: 0, a: 10, b: -10 });
    // B's soft limit (-90) is checked on Z: nothing is sent for a step past it.
    const sent = b.fake.commands.length;
    expect((await b.call('POST', '/api/machine/jog', { axis: 'B', step: -100, feed: 1000 })).status).toBe(
      409,
    );
    expect(b.fake.commands.slice(2)).toEqual(
      ['G1 Y10 F1000', 'G1 Z-10 F1000'].flatMap((move) => ['G91', move, 'G90', 'M114']),
    );
    expect(b.fake.commands).toHaveLength(sent);
  });

  it('holds a move typed in the console to the soft limits', async () => {
    const { b } = await connected();
    const refused = await b.call('POST', '/api/machine/command', { command: 'G1 X120 F1000' });
    expect(refused).toMatchObject({
      status: 409,
      body: {
        detail: expect.stringMatching(/^Line 1: 'G1 X120 F1000' moves X to 120, above the soft limit 100/),
      },
    });
    expect(b.fake.commands).toEqual([]);
    expect((await b.call('POST', '/api/machine/command', { command: 'G1 X80 F1000' })).status).toBe(200);
    expect(b.fake.commands).toEqual(['G1 X80 F1000', 'M114']);
  });

  it("holds a console move to the axes' maximum feed, and a relative one to the soft limits", async () => {
    const { b } = await connected();
    expect(await b.call('POST', '/api/machine/command', { command: 'G1 X50 F6000' })).toMatchObject({
      status: 400,
      body: {
        detail:
          "'G1 X50 F6000': feed 6000 is above the maximum feed of X (5000) in profile 'Winder 1'; nothing was sent",
      },
    });
    expect((await b.call('POST', '/api/machine/command', { command: 'G0 B10 F3500' })).status).toBe(400);
    expect(b.fake.commands).toEqual([]);

    // After G91 a step is checked from where the axis stands, read first when not known.
    expect((await b.call('POST', '/api/machine/command', { command: 'G91' })).status).toBe(200);
    b.motion.position.set('X', 95);
    expect(await b.call('POST', '/api/machine/command', { command: 'G1 X10 F1000' })).toMatchObject({
      status: 409,
      body: {
        detail:
          "'G1 X10 F1000' moves X to 105, above the soft limit 100 of profile 'Winder 1'; nothing was sent",
      },
    });
    expect(b.fake.commands).toEqual(['G91', 'M114']);
    expect((await b.call('POST', '/api/machine/command', { command: 'G1 X-10 F1000' })).status).toBe(200);
    expect(b.fake.commands.slice(2, 3)).toEqual(['G1 X-10 F1000']);
    // B stands at 0: a step of -100 would take it past -90.
    const sent = b.fake.commands.length;
    expect((await b.call('POST', '/api/machine/command', { command: 'G1 B-100 F1000' })).status).toBe(409);
    expect(b.fake.commands.length).toBe(sent);
  });

  it('reads the position before checking a jog when it is not known yet, and sends no move', async () => {
    const { b } = await connected();
    b.motion.position.set('X', 99.5);
    const jog = await b.call('POST', '/api/machine/jog', { axis: 'X', step: 1, feed: 100 });
    expect(jog).toMatchObject({
      status: 409,
      body: { detail: expect.stringContaining('X would go to 100.5') },
    });
    expect(b.fake.commands).toEqual(['M114']);
  });

  it('refuses a program that leaves the soft limits, naming its first offending line, and streams nothing', async () => {
    const { b } = await connected();
    await b.call('POST', '/api/machine/home', {});
    const sent = b.fake.commands.length;
    const program = [
      '; a program with a comment first',
      'G0 X10 A0',
      'G1 X90 A720 F3000',
      'G92 X0', // the carriage stands at 90: from here X is 90 less than the controller's coordinate
      'G1 X5 B45',
      'G1 X20 B-30', // 90 + 20 = 110 > 100
      'G1 X200',
    ].join('\n');
    const refused = await b.call('POST', '/api/machine/job?name=too-long.gcode', { gcode: program });
    expect(refused).toMatchObject({
      status: 409,
      body: {
        detail:
          "Line 6: 'G1 X20 B-30' moves X to 110, above the soft limit 100 of profile 'Winder 1'; nothing was streamed",
      },
    });
    const head = await b.call('POST', '/api/machine/dry-run', { gcode: 'G0 X1\nG1 B95 F100' });
    expect(head).toMatchObject({
      status: 409,
      body: {
        detail: expect.stringMatching(/^Line 2: 'G1 B95 F100' moves B to 95, above the soft limit 90/),
      },
    });
    expect(b.fake.commands.length).toBe(sent);
    // A refused program never started: no job in the history.
    expect((await b.call('GET', '/api/machine/jobs')).body.jobs).toEqual([]);

    // Inside the limits it streams.
    const inside = await b.call('POST', '/api/machine/job', {
      gcode: 'G0 X10\nG92 X0\nG1 X90 B-90 F3000\nG28 X\nG1 X100',
    });
    expect(inside.status).toBe(202);
    await b.fake.until(() => b.fake.commands.length >= sent + 5, 5000);
    expect(b.fake.commands.slice(sent, sent + 5)).toEqual([
      'G0 X10',
      'G92 X0',
      'G1 X90 B-90 F3000',
      'G28 X',
      'G1 X100',
    ]);
  });
});
