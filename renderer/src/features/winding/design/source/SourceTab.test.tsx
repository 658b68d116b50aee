// @vitest-environment jsdom
// The Source tab: the editor shows the text, reports edits made in it, takes text changed from
// outside without reporting it back, and lists the engine's diagnostics with a way to each.
import { EditorView } from '@codemirror/view';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LazySourceTab } from './LazySourceTab.tsx';
import { SOURCE_LABEL } from './SourceEditor.tsx';
import { SourceTab } from './SourceTab.tsx';

afterEach(cleanup);

// What jsdom lacks: it lays nothing out, so its ranges cannot be measured (CodeMirror measures one
// to draw the selection; an unlaid-out range has no boxes), and its navigator says "Apple", so
// CodeMirror reads a shadow root's selection the Safari way, through execCommand, which jsdom has
// not got (it does nothing here: no beforeinput comes, and the regular selection is used).
if (!('getClientRects' in Range.prototype)) {
  Object.assign(Range.prototype, {
    getClientRects: () => document.createElement('div').getClientRects(),
    getBoundingClientRect: () => document.createElement('div').getBoundingClientRect(),
  });
}
if (!('execCommand' in document)) Object.assign(document, { execCommand: () => false });

const DEFINITION = `{
  "layers": [
    { "windType": "hoop" }
  ],
  "mandrelParameters": { "diameter": 70.0, "windLength": 500.0 },
  "towParameters": { "width": 7.0, "thickness": 0.5 },
  "defaultFeedRate": 9000.0
}
`;

function mount(text: string, extra: { onUndo?: () => void; onRedo?: () => void } = {}) {
  const onChange = vi.fn<(text: string) => void>();
  const result = render(<SourceTab text={text} onChange={onChange} {...extra} />);
  const host = result.container.querySelector('.source-editor');
  const shadow = host?.shadowRoot;
  if (!shadow) throw new Error('the editor has no shadow root');
  // The editor's own DOM is in the shadow root, where its styles may be injected (see SourceEditor).
  const content = within(shadow as unknown as HTMLElement).getByRole('textbox', { name: SOURCE_LABEL });
  const view = EditorView.findFromDOM(content);
  if (!view) throw new Error('no editor view');
  const rerender = (next: string) =>
    result.rerender(<SourceTab text={next} onChange={onChange} {...extra} />);
  return { onChange, content, view, rerender };
}

describe('SourceTab', () => {
  it('shows the text in a multi-line textbox named "Definition source"', () => {
    const { content, view } = mount(DEFINITION);
    expect(content.getAttribute('aria-multiline')).toBe('true');
    expect(content.getAttribute('contenteditable')).toBe('true');
    expect(content.textContent).toContain('"defaultFeedRate": 9000.0');
    expect(view.state.doc.toString()).toBe(DEFINITION);
  });

  it('reports an edit made in the editor with the whole new text', () => {
    const { onChange, view } = mount(DEFINITION);
    const at = DEFINITION.indexOf('9000.0');
    act(() => view.dispatch({ changes: { from: at, to: at + 4, insert: '8500' }, userEvent: 'input.type' }));
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenLastCalledWith(DEFINITION.replace('9000.0', '8500.0'));
  });

  it('takes a text changed from outside without reporting it, keeping the cursor by its text', () => {
    const { onChange, view, rerender } = mount(DEFINITION);
    const cursor = DEFINITION.indexOf('9000.0');
    act(() => view.dispatch({ selection: { anchor: cursor } }));
    const next = DEFINITION.replace('"diameter": 70.0', '"diameter": 125.25');
    rerender(next);
    expect(view.state.doc.toString()).toBe(next);
    expect(onChange).not.toHaveBeenCalled();
    // The cursor is still before 9000.0, which moved by the three characters inserted above it.
    expect(view.state.selection.main.head).toBe(next.indexOf('9000.0'));
    // A text equal to what the editor holds changes nothing.
    rerender(next);
    expect(view.state.doc.toString()).toBe(next);
  });

  it('keeps CRLF line ends in the text it reports, also after a text from outside switched them', () => {
    const crlf = DEFINITION.replaceAll('\n', '\r\n');
    const { onChange, view, rerender } = mount(crlf);
    act(() => view.dispatch({ changes: { from: 0, insert: ' ' }, userEvent: 'input.type' }));
    expect(onChange).toHaveBeenLastCalledWith(` ${crlf}`);
    rerender(DEFINITION);
    act(() => view.dispatch({ changes: { from: 0, insert: ' ' }, userEvent: 'input.type' }));
    expect(onChange).toHaveBeenLastCalledWith(` ${DEFINITION}`);
    rerender(crlf);
    expect(view.state.sliceDoc()).toBe(crlf);
    expect(onChange).toHaveBeenCalledTimes(2);
  });

  it('lists the engine diagnostics; a problem button selects the offending token', async () => {
    const bad = DEFINITION.replace('"width": 7.0', '"width": -7.0');
    const { view } = mount(bad);
    const problems = screen.getByRole('region', { name: 'Source problems' });
    await waitFor(() => expect(within(problems).getByRole('status').textContent).toBe('1 problem'));
    const button = within(problems).getByRole('button', { name: 'Line 6, column 31' });
    expect(button.getAttribute('aria-describedby')).toBeTruthy();
    const message = document.getElementById(button.getAttribute('aria-describedby') ?? '');
    expect(message?.textContent).toBe(
      'towParameters.width\n  Input should be greater than 0 [type=greater_than]',
    );
    fireEvent.click(button);
    const { from, to } = view.state.selection.main;
    expect(view.state.sliceDoc(from, to)).toBe('-7.0');

    // Fixing it in the editor clears the list after the pause.
    act(() => view.dispatch({ changes: { from, to, insert: '7.0' }, userEvent: 'input.type' }));
    await waitFor(() => expect(within(problems).getByRole('status').textContent).toBe('No problems'));
    expect(within(problems).queryAllByRole('button')).toHaveLength(0);
  });

  it('passes Ctrl+Z and Ctrl+Y to the host history when it has one', () => {
    const onUndo = vi.fn();
    const onRedo = vi.fn();
    const { content } = mount(DEFINITION, { onUndo, onRedo });
    fireEvent.keyDown(content, { key: 'z', code: 'KeyZ', keyCode: 90, ctrlKey: true });
    fireEvent.keyDown(content, { key: 'y', code: 'KeyY', keyCode: 89, ctrlKey: true });
    fireEvent.keyDown(content, { key: 'Z', code: 'KeyZ', keyCode: 90, ctrlKey: true, shiftKey: true });
    expect(onUndo).toHaveBeenCalledTimes(1);
    expect(onRedo).toHaveBeenCalledTimes(2);
  });

  it('loads on demand, saying so meanwhile', async () => {
    const { container } = render(<LazySourceTab text={DEFINITION} onChange={() => {}} />);
    expect(screen.getByRole('status').textContent).toBe('Loading the source editor…');
    await waitFor(() => expect(container.querySelector('.source-editor')?.shadowRoot).toBeTruthy());
    const shadow = container.querySelector('.source-editor')?.shadowRoot as unknown as HTMLElement;
    expect(within(shadow).getByRole('textbox', { name: SOURCE_LABEL }).textContent).toContain('"layers"');
  });
});
