// Which machine the operator is at: a profile chosen here fills the connection (port, baud rate,
// axis letters) and, once connected with it, governs jogs and jobs. New, edit and delete open the
// profile form or act on the chosen profile.
import { useState } from 'react';
import type { MachineProfile } from '#engine/machine/contract.ts';
import { ProfileDialog } from './ProfileDialog.tsx';
import type { ProfilesView } from './useMachineRecords.ts';

export interface ProfilePickerProps {
  profiles: ProfilesView;
  /** The chosen profile's id, or null for settings typed by hand. */
  chosen: number | null;
  onChoose(id: number | null): void;
  /** The port typed in the panel, offered to a new profile. */
  port: string;
  /** Choosing is off while connected or busy; editing is off without control. */
  chooseDisabled: boolean;
  editDisabled: boolean;
}

export function ProfilePicker({
  profiles,
  chosen,
  onChoose,
  port,
  chooseDisabled,
  editDisabled,
}: ProfilePickerProps) {
  const [editing, setEditing] = useState<MachineProfile | 'new' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const current = profiles.profiles.find((p) => p.id === chosen) ?? null;

  const remove = async () => {
    if (!current) return;
    setProblem(null);
    try {
      await profiles.remove(current.id);
      onChoose(null);
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  return (
    <div className="machine__profiles">
      <label>
        Machine profile{' '}
        <select
          aria-label="Machine profile"
          value={chosen ?? ''}
          disabled={chooseDisabled}
          onChange={(event) => onChoose(event.target.value === '' ? null : Number(event.target.value))}
        >
          <option value="">None (settings below)</option>
          {profiles.profiles.map((profile) => (
            <option key={profile.id} value={profile.id}>
              {profile.name}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={() => setEditing('new')} disabled={editDisabled}>
        New profile
      </button>
      <button
        type="button"
        onClick={() => current && setEditing(current)}
        disabled={editDisabled || !current}
      >
        Edit profile
      </button>
      <button
        type="button"
        onClick={() => void remove()}
        disabled={editDisabled || !current || chooseDisabled}
      >
        Delete profile
      </button>
      {(problem ?? profiles.problem) && (
        <p className="machine__problem" role="alert">
          {problem ?? profiles.problem}
        </p>
      )}
      {editing && (
        <ProfileDialog
          profile={editing === 'new' ? null : editing}
          port={port}
          save={async (input) => {
            const saved =
              editing === 'new' ? await profiles.create(input) : await profiles.replace(editing.id, input);
            onChoose(saved.id);
          }}
          onClose={() => setEditing(null)}
        />
      )}
    </div>
  );
}
