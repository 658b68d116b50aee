// The machine profile form: name, port and baud rate, axis letters, each axis's soft limits,
// maximum feed and homing, the delivery-eye geometry and the controller's queue depth. Every
// control has a visible label; the door's refusal (a duplicate name, a limit the wrong way round)
// is shown in the dialog and the form keeps what was typed.
import { type FormEvent, useState } from 'react';
import {
  type AxisProfile,
  BAUD_RATES,
  DEFAULT_QUEUE_DEPTH,
  type MachineProfile,
  type ProfileInput,
} from '#engine/machine/contract.ts';
import { AXIS_FORMATS, MANUAL_AXES, type ManualAxis } from '#engine/machine/manual.ts';
import type { AxisFormat } from '#engine/plan/types.ts';
import { Dialog } from '../../../ui/Dialog.tsx';
import { Checkbox, Field, Problem, TextField } from '../../../ui/Field.tsx';
import '../../../ui/forms.css';

const UNIT: Record<ManualAxis, string> = { X: 'mm', A: '°', B: '°' };
const AXIS_NAME: Record<ManualAxis, string> = { X: 'carriage', A: 'mandrel', B: 'delivery head' };
const EYE_FIELDS = [
  ['eyeRadius', 'Eye radius (mm)'],
  ['carriageMin', 'Carriage minimum (mm)'],
  ['carriageMax', 'Carriage maximum (mm)'],
  ['eyeClearance', 'Eye clearance (mm)'],
] as const;
type EyeField = (typeof EYE_FIELDS)[number][0];

interface AxisForm {
  min: string;
  max: string;
  maxFeed: string;
  homing: boolean;
}

interface Form {
  name: string;
  port: string;
  baudRate: number;
  axisFormat: AxisFormat;
  axes: Record<ManualAxis, AxisForm>;
  machine: Record<EyeField, string>;
  queueDepth: string;
}

const text = (value: number | null | undefined) =>
  value === null || value === undefined ? '' : String(value);

function formOf(profile: MachineProfile | null, port: string): Form {
  const axis = (a: AxisProfile | undefined): AxisForm => ({
    min: text(a?.min),
    max: text(a?.max),
    maxFeed: text(a?.maxFeed),
    homing: a?.homing ?? true,
  });
  return {
    name: profile?.name ?? '',
    port: profile?.port ?? port,
    baudRate: profile?.baudRate ?? 250000,
    axisFormat: profile?.axisFormat ?? 'xab',
    axes: { X: axis(profile?.axes.X), A: axis(profile?.axes.A), B: axis(profile?.axes.B) },
    machine: {
      eyeRadius: text(profile?.machine.eyeRadius),
      carriageMin: text(profile?.machine.carriageMin),
      carriageMax: text(profile?.machine.carriageMax),
      eyeClearance: text(profile?.machine.eyeClearance),
    },
    queueDepth: text(profile?.queueDepth ?? DEFAULT_QUEUE_DEPTH),
  };
}

/** An empty box is "no limit"; anything else goes as a number for the door to judge. */
const number = (value: string) => (value.trim() === '' ? null : Number(value));

function inputOf(form: Form): ProfileInput {
  const machine: Partial<Record<EyeField, number>> = {};
  for (const [key] of EYE_FIELDS) {
    const value = number(form.machine[key]);
    if (value !== null) machine[key] = value;
  }
  const axes = Object.fromEntries(
    MANUAL_AXES.map((axis) => {
      const a = form.axes[axis];
      return [axis, { min: number(a.min), max: number(a.max), maxFeed: number(a.maxFeed), homing: a.homing }];
    }),
  ) as Record<ManualAxis, AxisProfile>;
  return {
    name: form.name,
    port: form.port,
    baudRate: form.baudRate,
    axisFormat: form.axisFormat,
    axes,
    machine,
    queueDepth: number(form.queueDepth) ?? DEFAULT_QUEUE_DEPTH,
  };
}

export interface ProfileDialogProps {
  /** The profile being edited, or null for a new one. */
  profile: MachineProfile | null;
  /** The port typed in the panel, offered for a new profile. */
  port: string;
  save(input: ProfileInput): Promise<unknown>;
  onClose(): void;
}

export function ProfileDialog({ profile, port, save, onClose }: ProfileDialogProps) {
  const [form, setForm] = useState<Form>(() => formOf(profile, port));
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const setAxis = (axis: ManualAxis, change: Partial<AxisForm>) =>
    setForm((f) => ({ ...f, axes: { ...f.axes, [axis]: { ...f.axes[axis], ...change } } }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    try {
      await save(inputOf(form));
      onClose();
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog title={profile ? `Edit profile ${profile.name}` : 'New profile'} onClose={onClose}>
      <form className="form profile-form" onSubmit={submit} aria-label="Machine profile">
        <Problem message={problem} />
        <TextField
          label="Name"
          value={form.name}
          onChange={(name) => setForm((f) => ({ ...f, name }))}
          required
        />
        <TextField
          label="Serial port"
          value={form.port}
          onChange={(value) => setForm((f) => ({ ...f, port: value }))}
          placeholder="/dev/ttyUSB0"
          spellCheck={false}
          autoComplete="off"
          required
        />
        <Field label="Baud rate">
          {(control) => (
            <select
              {...control}
              value={form.baudRate}
              onChange={(event) => setForm((f) => ({ ...f, baudRate: Number(event.target.value) }))}
            >
              {BAUD_RATES.map((baud) => (
                <option key={baud} value={baud}>
                  {baud}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Controller axes">
          {(control) => (
            <select
              {...control}
              value={form.axisFormat}
              onChange={(event) => setForm((f) => ({ ...f, axisFormat: event.target.value as AxisFormat }))}
            >
              {AXIS_FORMATS.map((format) => (
                <option key={format} value={format}>
                  {format === 'xab' ? 'X A B' : 'X Y Z'}
                </option>
              ))}
            </select>
          )}
        </Field>
        {MANUAL_AXES.map((axis) => (
          <fieldset key={axis} className="profile-form__axis">
            <legend>
              {axis} ({AXIS_NAME[axis]}, {UNIT[axis]})
            </legend>
            <TextField
              label={`${axis} minimum`}
              hint="Empty: no limit"
              type="number"
              step="any"
              value={form.axes[axis].min}
              onChange={(min) => setAxis(axis, { min })}
            />
            <TextField
              label={`${axis} maximum`}
              type="number"
              step="any"
              value={form.axes[axis].max}
              onChange={(max) => setAxis(axis, { max })}
            />
            <TextField
              label={`${axis} maximum feed (per minute)`}
              type="number"
              step="any"
              min="0"
              value={form.axes[axis].maxFeed}
              onChange={(maxFeed) => setAxis(axis, { maxFeed })}
            />
            <Checkbox
              label={`${axis} can home`}
              checked={form.axes[axis].homing}
              onChange={(homing) => setAxis(axis, { homing })}
            />
          </fieldset>
        ))}
        <fieldset className="profile-form__axis">
          <legend>Delivery eye (for the vessel planner)</legend>
          {EYE_FIELDS.map(([key, label]) => (
            <TextField
              key={key}
              label={label}
              type="number"
              step="any"
              value={form.machine[key]}
              onChange={(value) => setForm((f) => ({ ...f, machine: { ...f.machine, [key]: value } }))}
            />
          ))}
        </fieldset>
        <TextField
          label="Queue depth (lines)"
          hint="Lines the controller may hold unexecuted; resume counts back this far from the last acknowledged line."
          type="number"
          min="0"
          step="1"
          value={form.queueDepth}
          onChange={(queueDepth) => setForm((f) => ({ ...f, queueDepth }))}
        />
        <div className="toolbar">
          <button type="submit" className="button" disabled={saving}>
            Save profile
          </button>
        </div>
      </form>
    </Dialog>
  );
}
