// @vitest-environment jsdom
// Saving the G-code: through the desktop app's native dialog (the preload API faked at its edge) in
// pieces that put the exact bytes back together, or as a download in a browser; and the desktop
// menu's Save command reaching the open program.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFERENCE_ROOT } from '../../../../../reference/paths.ts';
import type { MenuCommand, TowpathDesktopApi } from '../../../lib/desktop.ts';
import { useProgram } from '../useProgram.ts';
import { SAVE_PIECE_BYTES, saveProgram } from './save-program.ts';

/** The preload API as the desktop app exposes it, with the file system replaced by a record. */
function fakeDesktop(answer: { canceled: true } | { canceled: false; path: string }) {
  const pieces: { path: string; bytes: Uint8Array; offset: number; last: boolean }[] = [];
  const menu = new Set<(command: MenuCommand) => void>();
  const api: TowpathDesktopApi = {
    version: 'test',
    openFile: vi.fn(async () => ({ canceled: true }) as const),
    saveFile: vi.fn(async () => answer),
    recentFiles: vi.fn(async () => []),
    onMenuCommand: (listener) => {
      menu.add(listener);
      return () => menu.delete(listener);
    },
    readFile: vi.fn(async () => ({ bytes: new Uint8Array(), size: 0 })),
    writeFile: vi.fn(async (path, bytes, at) => {
      // The IPC boundary copies the bytes; so does this record.
      pieces.push({ path, bytes: bytes.slice(), ...at });
    }),
  };
  const written = () => {
    const out = new Uint8Array(pieces.reduce((n, p) => n + p.bytes.length, 0));
    for (const piece of pieces) out.set(piece.bytes, piece.offset);
    return out;
  };
  const sendMenu = (command: MenuCommand) => {
    for (const listener of menu) listener(command);
  };
  return { api, pieces, written, sendMenu };
}

function bytesOf(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let k = 0; k < length; k++) bytes[k] = (k * 31 + (k >> 8)) & 0xff;
  return bytes;
}

describe('saveProgram', () => {
  it('in the desktop app: native dialog, then pieces in order whose last one is marked', async () => {
    const desktop = fakeDesktop({ canceled: false, path: '/jobs/vessel.gcode' });
    const content = bytesOf(2 * SAVE_PIECE_BYTES + 1234);
    const outcome = await saveProgram(new Blob([content.slice()]), 'vessel.gcode', desktop.api);
    expect(outcome).toEqual({ kind: 'saved', path: '/jobs/vessel.gcode' });
    expect(desktop.api.saveFile).toHaveBeenCalledWith({ kind: 'gcode', suggestedPath: 'vessel.gcode' });
    expect(desktop.pieces.map((p) => [p.offset, p.bytes.length, p.last])).toEqual([
      [0, SAVE_PIECE_BYTES, false],
      [SAVE_PIECE_BYTES, SAVE_PIECE_BYTES, false],
      [2 * SAVE_PIECE_BYTES, 1234, true],
    ]);
    expect(desktop.pieces.every((p) => p.path === '/jobs/vessel.gcode')).toBe(true);
    expect(Buffer.from(desktop.written()).equals(Buffer.from(content))).toBe(true);
  });

  it('an empty program is still saved, as one empty last piece', async () => {
    const desktop = fakeDesktop({ canceled: false, path: '/jobs/empty.gcode' });
    await saveProgram(new Blob([]), 'empty.gcode', desktop.api);
    expect(desktop.pieces.map((p) => [p.offset, p.bytes.length, p.last])).toEqual([[0, 0, true]]);
  });

  it('writes nothing when the operator cancels the dialog', async () => {
    const desktop = fakeDesktop({ canceled: true });
    expect(await saveProgram(new Blob(['G0 X1\n']), 'a.gcode', desktop.api)).toEqual({ kind: 'canceled' });
    expect(desktop.api.writeFile).not.toHaveBeenCalled();
  });

  describe('where there is no native dialog', () => {
    let clicked: { download: string; href: string }[];
    beforeEach(() => {
      clicked = [];
      // jsdom has no object URLs and does not navigate; the link's click is what a browser acts on.
      URL.createObjectURL = vi.fn(() => 'blob:test/1');
      URL.revokeObjectURL = vi.fn();
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
        clicked.push({ download: this.download, href: this.href });
      });
    });
    afterEach(() => vi.restoreAllMocks());

    it('a browser downloads the Blob under the suggested name', async () => {
      const blob = new Blob(['G0 X1\n']);
      expect(await saveProgram(blob, 'part.gcode', undefined)).toEqual({
        kind: 'downloaded',
        name: 'part.gcode',
      });
      expect(clicked).toEqual([{ download: 'part.gcode', href: 'blob:test/1' }]);
      expect(URL.createObjectURL).toHaveBeenCalledWith(blob);
    });

    it('a desktop shell too old to write files downloads as well', async () => {
      const { api } = fakeDesktop({ canceled: false, path: '/x.gcode' });
      const { writeFile: _omitted, ...old } = api;
      expect((await saveProgram(new Blob(['G0\n']), 'p.gcode', old)).kind).toBe('downloaded');
      expect(api.saveFile).not.toHaveBeenCalled();
      expect(clicked).toHaveLength(1);
    });
  });
});

describe("the desktop menu's Save G-code", () => {
  afterEach(() => {
    delete (window as { towpath?: unknown }).towpath;
  });

  it("saves the open definition's planned G-code, byte for byte, through the native dialog", async () => {
    const desktop = fakeDesktop({ canceled: false, path: '/jobs/input.gcode' });
    (window as { towpath?: TowpathDesktopApi }).towpath = desktop.api;
    const { result, unmount } = renderHook(() => useProgram());
    const wind = readFileSync(join(REFERENCE_ROOT, 'simple_cylinder', 'input.wind'));
    await act(() => result.current.openFile(new File([wind], 'input.wind')));
    await waitFor(() => expect(result.current.state.phase).toBe('loaded'));

    await act(async () => desktop.sendMenu({ type: 'save-gcode' }));
    await waitFor(() => expect(result.current.saveNote).toBe('Saved to /jobs/input.gcode'));
    expect(desktop.api.saveFile).toHaveBeenCalledWith({ kind: 'gcode', suggestedPath: 'input.gcode' });
    const expected = readFileSync(join(REFERENCE_ROOT, 'simple_cylinder', 'expected-xab.gcode'));
    expect(Buffer.from(desktop.written()).equals(expected)).toBe(true);
    unmount();
  });

  it('with nothing open, says so and opens no dialog', async () => {
    const desktop = fakeDesktop({ canceled: false, path: '/jobs/x.gcode' });
    (window as { towpath?: TowpathDesktopApi }).towpath = desktop.api;
    const { result, unmount } = renderHook(() => useProgram());
    await act(async () => desktop.sendMenu({ type: 'save-gcode' }));
    expect(result.current.saveNote).toBe('Nothing to save: open a definition or G-code program first.');
    expect(desktop.api.saveFile).not.toHaveBeenCalled();
    unmount();
  });
});
