// Who may do what with a dashboard, and how it looks to them (spec §8.1, §8.2): capabilities from
// role, ownership, ACL and visibility; the projection for one caller; the lazily decoded view of a
// listed row. Reads only: every write is the service's.
import type { Principal } from '../auth/principal.ts';
import type { AccessLevel, AclRow, DashboardRow, ListedRow } from '../db/repositories/dashboards.ts';
import type { DashboardDocument, JsonObject } from '../db/schema.ts';
import type { Store } from '../db/store.ts';
import { orderedDocument } from './document.ts';

export type Visibility = DashboardRow['visibility'];

export interface Capabilities {
  read: boolean;
  /** Edit = manage sharing. */
  edit: boolean;
  /** Delete = transfer. */
  delete: boolean;
  isOwner: boolean;
}

/** A dashboard projected for one caller (§8.2). */
export interface DashboardView extends DashboardDocument {
  _id: string;
  visibility: Visibility;
  shareToken: string | null;
  shareTokenVersion: number;
  documentRevision: number;
  user: string | null;
  acl: { userId: string; accessLevel: AccessLevel; grantedBy: string | null; grantedAt: string }[];
  isOwner: boolean;
  canEdit: boolean;
  canManageSharing: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The stored dashboard and its ACL as one change left them. */
export interface DashboardSnapshot {
  row: DashboardRow;
  acl: AclRow[];
}

export function documentOf(row: DashboardRow): DashboardDocument {
  return orderedDocument(row);
}

/**
 * §8.1 for a caller and a stored dashboard (share tokens aside). `entry` is the caller's ACL entry
 * when already read (null for none); otherwise it is read from the store.
 */
export function capabilities(
  store: Store,
  caller: Principal,
  row: Pick<DashboardRow, 'id' | 'ownerId' | 'visibility'>,
  entry?: Pick<AclRow, 'accessLevel'> | null,
): Capabilities {
  if (caller.kind !== 'user') {
    const read = row.visibility === 'public';
    return { read, edit: false, delete: false, isOwner: false };
  }
  const { user } = caller;
  const isOwner = row.ownerId === user.id;
  if (user.role === 'admin') return { read: true, edit: true, delete: true, isOwner };
  const acl = entry === undefined ? store.dashboards.aclEntry(row.id, user.id) : entry;
  const editor = user.role === 'editor';
  return {
    read: isOwner || acl != null || row.visibility === 'public',
    edit: editor && (isOwner || acl?.accessLevel === 'editor'),
    delete: editor && isOwner,
    isOwner,
  };
}

/** §8.2: the dashboard as a caller with `caps` may see it; the ACL is read when not given. */
export function project(store: Store, row: DashboardRow, caps: Capabilities, acl?: AclRow[]): DashboardView {
  const share = caps.edit;
  const entries = share ? (acl ?? store.dashboards.aclFor(row.id)) : [];
  return {
    _id: row.id,
    ...documentOf(row),
    visibility: row.visibility,
    shareToken: share ? row.shareToken : null,
    shareTokenVersion: row.shareTokenVersion,
    documentRevision: row.documentRevision,
    user: share ? row.ownerId : null,
    acl: entries.map(aclView),
    isOwner: caps.isOwner,
    canEdit: caps.edit,
    canManageSharing: caps.edit,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * The caller's list, newest first, as lazily decoded views. One statement gives the visible rows
 * with the caller's own ACL level; the ACL of the editable rows (the only ones that show it) comes
 * in one more statement the first time any row's `acl` is read.
 */
export function listedViews(store: Store, caller: Principal, rows: ListedRow[]): DashboardView[] {
  const caps = rows.map((row) =>
    capabilities(store, caller, row, row.ownAccess ? { accessLevel: row.ownAccess } : null),
  );
  let grouped: Map<string, AclRow[]> | undefined;
  const aclOf = (id: string): AclRow[] => {
    grouped ??= groupAcl(
      store.dashboards.aclForDashboards(rows.filter((_, i) => caps[i]?.edit).map((row) => row.id)),
    );
    return grouped.get(id) ?? [];
  };
  return rows.map((row, i) => new ListedView(row, caps[i] as Capabilities, aclOf));
}

function aclView(entry: AclRow): DashboardView['acl'][number] {
  return {
    userId: entry.userId,
    accessLevel: entry.accessLevel,
    grantedBy: entry.grantedBy,
    grantedAt: entry.grantedAt,
  };
}

function groupAcl(entries: AclRow[]): Map<string, AclRow[]> {
  const grouped = new Map<string, AclRow[]>();
  for (const entry of entries) {
    const list = grouped.get(entry.dashboardId);
    if (list) list.push(entry);
    else grouped.set(entry.dashboardId, [entry]);
  }
  return grouped;
}

/**
 * `project` for a listed row: the same fields, but the JSON document fields are decoded and the ACL
 * read on first access (GraphQL reads only the selected fields), then kept. A class, so that the 300
 * rows of a list share their accessors; `toJSON` gives the same JSON as a projected view.
 */
class ListedView {
  readonly _id: string;
  readonly title: string;
  readonly version: string;
  readonly image: string | null;
  readonly columns: number;
  readonly width: string;
  readonly visibility: Visibility;
  readonly shareToken: string | null;
  readonly shareTokenVersion: number;
  readonly documentRevision: number;
  readonly user: string | null;
  readonly isOwner: boolean;
  readonly canEdit: boolean;
  readonly canManageSharing: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly #row: ListedRow;
  readonly #aclOf: (id: string) => AclRow[];
  #datasources: JsonObject[] | undefined;
  #panes: JsonObject[] | undefined;
  #settings: JsonObject | undefined;
  #acl: DashboardView['acl'] | undefined;

  constructor(row: ListedRow, caps: Capabilities, aclOf: (id: string) => AclRow[]) {
    const share = caps.edit;
    this._id = row.id;
    this.title = row.title;
    this.version = row.version;
    this.image = row.image;
    this.columns = row.columns;
    this.width = row.width;
    this.visibility = row.visibility;
    this.shareToken = share ? row.shareToken : null;
    this.shareTokenVersion = row.shareTokenVersion;
    this.documentRevision = row.documentRevision;
    this.user = share ? row.ownerId : null;
    this.isOwner = caps.isOwner;
    this.canEdit = share;
    this.canManageSharing = share;
    this.createdAt = row.createdAt;
    this.updatedAt = row.updatedAt;
    this.#row = row;
    this.#aclOf = aclOf;
  }

  get datasources(): JsonObject[] {
    this.#datasources ??= JSON.parse(this.#row.datasourcesJson) as JsonObject[];
    return this.#datasources;
  }

  get panes(): JsonObject[] {
    this.#panes ??= JSON.parse(this.#row.panesJson) as JsonObject[];
    return this.#panes;
  }

  get settings(): JsonObject {
    this.#settings ??= JSON.parse(this.#row.settingsJson) as JsonObject;
    return this.#settings;
  }

  get acl(): DashboardView['acl'] {
    this.#acl ??= this.canEdit ? this.#aclOf(this._id).map(aclView) : [];
    return this.#acl;
  }

  toJSON(): DashboardView {
    const { datasources, panes, settings, acl } = this;
    return {
      _id: this._id,
      title: this.title,
      version: this.version,
      image: this.image,
      datasources,
      columns: this.columns,
      width: this.width,
      panes,
      settings,
      visibility: this.visibility,
      shareToken: this.shareToken,
      shareTokenVersion: this.shareTokenVersion,
      documentRevision: this.documentRevision,
      user: this.user,
      acl,
      isOwner: this.isOwner,
      canEdit: this.canEdit,
      canManageSharing: this.canManageSharing,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
    };
  }
}
