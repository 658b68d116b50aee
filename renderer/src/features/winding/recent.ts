// The recent list: the last programs opened, kept in IndexedDB. A browser keeps the File object
// itself (it can be read again without asking); the desktop app keeps the path, which its
// preload API reads.

export interface RecentEntry {
  name: string;
  size: number;
  openedAt: number;
  file?: File;
  path?: string;
}

const DB = 'towpath-winding';
const STORE = 'recent';
export const RECENT_LIMIT = 8;

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'key' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function keyOf(entry: RecentEntry): string {
  return entry.path ?? `${entry.name}\u0000${entry.size}`;
}

export async function listRecent(): Promise<RecentEntry[]> {
  if (typeof indexedDB === 'undefined') return [];
  const db = await openDb();
  try {
    const all = await new Promise<(RecentEntry & { key: string })[]>((resolve, reject) => {
      const request = db.transaction(STORE).objectStore(STORE).getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    return all.sort((a, b) => b.openedAt - a.openedAt).slice(0, RECENT_LIMIT);
  } finally {
    db.close();
  }
}

export async function rememberRecent(entry: RecentEntry): Promise<void> {
  if (typeof indexedDB === 'undefined') return;
  const db = await openDb();
  try {
    const store = db.transaction(STORE, 'readwrite').objectStore(STORE);
    await done(store.put({ ...entry, key: keyOf(entry) }));
    const all = await done(store.getAll() as IDBRequest<(RecentEntry & { key: string })[]>);
    const stale = all.sort((a, b) => b.openedAt - a.openedAt).slice(RECENT_LIMIT);
    for (const old of stale) await done(store.delete(old.key));
  } finally {
    db.close();
  }
}

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
