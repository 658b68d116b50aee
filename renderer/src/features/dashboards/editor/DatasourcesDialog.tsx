import { useState } from 'react';
import { useQuery } from 'urql';
import { BrokerProfilesDocument, CredentialProfilesDocument } from '../../../lib/graphql/generated.ts';
import { useMe } from '../../../lib/graphql/me.ts';
import { Dialog } from '../../../ui/Dialog.tsx';
import { Checkbox, Field, TextField } from '../../../ui/Field.tsx';
import { type Datasource, type DatasourceType, newId } from '../document.ts';
import type { HubSnapshot } from '../realtime/hub.ts';
import { DATASOURCE_FIELDS } from './fields.ts';
import { SettingsFields } from './SettingsFields.tsx';

/** A hint per type, in the order the picker offers them: the ones kept in the viewer first. */
const TYPE_HINTS: Record<DatasourceType, string> = {
  static: 'A fixed JSON value, kept in the dashboard.',
  clock: 'The time, ticking in the viewer.',
  machine: "This workstation's winder: connection, job, progress, errors.",
  http: 'Polled through the gateway.',
  sse: 'A server-sent event stream, through the gateway.',
  websocket: 'A WebSocket stream, through the gateway.',
  mqtt: 'An MQTT topic on a broker profile, through the gateway.',
};
const OFFERED = Object.keys(TYPE_HINTS) as DatasourceType[];

/** The dashboard's datasources: add one of any type, edit its settings, remove it. */
export function DatasourcesDialog({
  datasources,
  snapshot,
  startWithNew,
  onChange,
  onClose,
}: {
  datasources: Datasource[];
  snapshot: HubSnapshot;
  startWithNew: boolean;
  onChange: (datasources: Datasource[]) => void;
  onClose: () => void;
}) {
  const { user } = useMe();
  const mayReadProfiles = user?.role === 'EDITOR' || user?.role === 'ADMIN';
  const [credentials] = useQuery({ query: CredentialProfilesDocument, pause: !mayReadProfiles });
  const [brokers] = useQuery({ query: BrokerProfilesDocument, pause: !mayReadProfiles });
  const profiles = {
    credential: (credentials.data?.credentialProfiles ?? []).map((p) => ({
      id: p._id,
      name: `${p.name} (${p.type})`,
    })),
    broker: (brokers.data?.brokerProfiles ?? []).map((p) => ({ id: p._id, name: p.name })),
  };
  const [editing, setEditing] = useState<Datasource | null>(() =>
    startWithNew
      ? {
          id: newId(
            'ds',
            datasources.map((d) => d.id),
          ),
          title: '',
          type: 'static',
          enabled: true,
          settings: {},
        }
      : null,
  );
  const isNew = editing !== null && !datasources.some((d) => d.id === editing.id);
  const titleTaken =
    editing !== null &&
    datasources.some(
      (d) => d.id !== editing.id && d.title.trim().toLowerCase() === editing.title.trim().toLowerCase(),
    );

  return (
    <Dialog title="Datasources" onClose={onClose}>
      <ul className="datasource-list">
        {datasources.map((ds) => {
          const state = snapshot.states.get(ds.id);
          return (
            <li key={ds.id}>
              <span>
                <strong>{ds.title}</strong> ({ds.type}) · {state?.status ?? 'not running'}
                {state?.message ? ` · ${state.message}` : ''}
              </span>
              <span className="toolbar">
                <button type="button" className="button" onClick={() => setEditing(ds)}>
                  Edit datasource {ds.title}
                </button>
                <button
                  type="button"
                  className="button"
                  onClick={() => onChange(datasources.filter((d) => d.id !== ds.id))}
                >
                  Remove datasource {ds.title}
                </button>
              </span>
            </li>
          );
        })}
      </ul>
      <button
        type="button"
        className="button"
        onClick={() =>
          setEditing({
            id: newId(
              'ds',
              datasources.map((d) => d.id),
            ),
            title: '',
            type: 'static',
            enabled: true,
            settings: {},
          })
        }
      >
        New datasource
      </button>
      {editing && (
        <form
          className="form form--wide datasource-form"
          onSubmit={(event) => {
            event.preventDefault();
            onChange(
              isNew ? [...datasources, editing] : datasources.map((d) => (d.id === editing.id ? editing : d)),
            );
            setEditing(null);
          }}
        >
          <h3>{isNew ? 'New datasource' : `Datasource ${editing.title}`}</h3>
          <div className="form__row">
            <TextField
              label="Datasource title"
              required
              maxLength={100}
              value={editing.title}
              onChange={(title) => setEditing({ ...editing, title })}
            />
            <Field label="Datasource type" hint={TYPE_HINTS[editing.type as DatasourceType]}>
              {(control) => (
                <select
                  {...control}
                  value={editing.type}
                  onChange={(e) => setEditing({ ...editing, type: e.target.value, settings: {} })}
                >
                  {OFFERED.map((type) => (
                    <option key={type} value={type}>
                      {type}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <TextField
              label="Datasource id"
              value={editing.id}
              readOnly={!isNew}
              pattern="[A-Za-z0-9_\-]{1,64}"
              onChange={(id) => setEditing({ ...editing, id })}
            />
            <Checkbox
              label="Enabled"
              checked={editing.enabled !== false}
              onChange={(enabled) => setEditing({ ...editing, enabled })}
            />
          </div>
          <SettingsFields
            key={`${editing.id}-${editing.type}`}
            fields={DATASOURCE_FIELDS[editing.type] ?? []}
            settings={editing.settings ?? {}}
            onChange={(settings) => setEditing({ ...editing, settings })}
            profiles={profiles}
          />
          {titleTaken && (
            <p className="form__problem" role="alert">
              Another datasource already has this title.
            </p>
          )}
          <button
            type="submit"
            className="button button--primary"
            disabled={titleTaken || editing.title.trim() === ''}
          >
            Apply datasource
          </button>
        </form>
      )}
    </Dialog>
  );
}
