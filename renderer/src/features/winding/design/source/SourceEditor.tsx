// The definition as JSON text in CodeMirror 6, with the engine's diagnostics at the exact token.
//
// <SourceEditor text onChange onDiagnostics? onUndo? onRedo? ref? />
//   text           the definition's text; controlled. A change from outside (a form edit, undo)
//                  replaces only the part that differs, so the cursor stays where it was when the
//                  text around it did not change.
//   onChange(text) the whole text after each edit made in the editor (never for a `text` prop change).
//                  The host must pass that text back as `text` on its next render (keep it in state
//                  as given, not debounced): any other `text` is applied as a change from outside.
//   onDiagnostics  the current problems (`windDiagnostics`, with line and column), after each check;
//                  checks run in a worker, a short pause after typing stops.
//   onUndo/onRedo  given, Ctrl+Z and Ctrl+Shift+Z / Ctrl+Y in the editor call them, so one history
//                  covers forms and source; without them the editor keeps its own history.
//   ref            `reveal(from, to)`: select a range, scroll to it and focus the editor.
//
// The editor's content element is the textbox named "Definition source". Tab leaves the editor
// (it does not indent), so keyboard users are never trapped; F8 moves to the next problem.
//
// CodeMirror injects its styles at run time; the renderer's Content-Security-Policy
// (style-src 'self') refuses a <style> element, so the editor lives in a shadow root, where they
// go into a constructed style sheet instead.
import { json } from '@codemirror/lang-json';
import { type Diagnostic, linter, lintGutter, lintKeymap } from '@codemirror/lint';
import {
  Annotation,
  Compartment,
  EditorState,
  type Extension,
  Prec,
  Text,
  Transaction,
} from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { minimalSetup } from 'codemirror';
import { type Ref, useEffect, useImperativeHandle, useRef } from 'react';
import type { WindDiagnostic } from '#engine/wind/diagnostics.ts';
import { diagnosticsChecker } from './diagnostics-checker.ts';

/** A diagnostic with its 1-based line and column, for listing it outside the editor. */
export interface SourceProblem extends WindDiagnostic {
  readonly line: number;
  readonly column: number;
}

export interface SourceEditorHandle {
  reveal(from: number, to: number): void;
}

export interface SourceEditorProps {
  text: string;
  onChange(text: string): void;
  onDiagnostics?(problems: SourceProblem[]): void;
  onUndo?(): void;
  onRedo?(): void;
  ref?: Ref<SourceEditorHandle>;
}

/** The accessible name of the editor's textbox. */
export const SOURCE_LABEL = 'Definition source';

/** Pause after the last keystroke before the definition is checked again. */
const CHECK_DELAY_MS = 250;

/** Marks a transaction that applies the `text` prop, so it is not reported back as an edit. */
const fromProp = Annotation.define<boolean>();

/**
 * Whether to keep the text's CRLF line ends: CodeMirror joins lines with LF unless told otherwise.
 * Mixed line ends cannot be kept (one separator per document); they become LF on the first edit.
 */
function crlfOnly(text: string): boolean {
  return text.includes('\r\n') && !/\r(?!\n)|(?<!\r)\n/.test(text);
}

function lineSeparator(crlf: boolean): Extension {
  return crlf ? EditorState.lineSeparator.of('\r\n') : [];
}

/** The smallest replacement turning `from` into `to` (common prefix and suffix kept). */
function minimalChange(from: string, to: string): { from: number; to: number; insert: string } {
  let start = 0;
  const shorter = Math.min(from.length, to.length);
  while (start < shorter && from.charCodeAt(start) === to.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < shorter - start &&
    from.charCodeAt(from.length - 1 - end) === to.charCodeAt(to.length - 1 - end)
  )
    end++;
  return { from: start, to: from.length - end, insert: to.slice(start, to.length - end) };
}

const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '0.9rem' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
  '&.cm-focused': { outline: '2px solid #1d63c5', outlineOffset: '-2px' },
});

export function SourceEditor({ text, onChange, onDiagnostics, onUndo, onRedo, ref }: SourceEditorProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | null>(null);
  const separator = useRef(new Compartment());
  // The callbacks change on every render of the host; the editor is built once and reads them here.
  const props = useRef({ onChange, onDiagnostics, onUndo, onRedo });
  props.current = { onChange, onDiagnostics, onUndo, onRedo };
  const initialText = useRef(text);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
    let live = true;
    const checker = diagnosticsChecker();
    const check = linter(
      async (view): Promise<Diagnostic[]> => {
        const doc = view.state.doc;
        // Offsets in CodeMirror count a line break as one character: check the LF-joined text.
        const found = await checker.check(doc.toString());
        // A newer text is on its way (CodeMirror drops this answer too), or the editor is gone.
        if (view.state.doc !== doc || !live) return [];
        props.current.onDiagnostics?.(
          found.map((d) => {
            const line = doc.lineAt(d.from);
            return { ...d, line: line.number, column: d.from - line.from + 1 };
          }),
        );
        return found.map(({ from, to, severity, message, source }) => ({
          from,
          to,
          severity,
          message,
          source,
        }));
      },
      { delay: CHECK_DELAY_MS },
    );
    const history = (run: 'onUndo' | 'onRedo') => () => {
      const handler = props.current[run];
      if (!handler) return false;
      handler();
      return true;
    };
    const state = EditorState.create({
      doc: initialText.current,
      extensions: [
        separator.current.of(lineSeparator(crlfOnly(initialText.current))),
        Prec.high(
          keymap.of([
            { key: 'Mod-z', run: history('onUndo'), preventDefault: true },
            { key: 'Mod-Shift-z', run: history('onRedo'), preventDefault: true },
            { key: 'Mod-y', run: history('onRedo'), preventDefault: true },
          ]),
        ),
        minimalSetup,
        lineNumbers(),
        json(),
        check,
        lintGutter(),
        keymap.of(lintKeymap),
        theme,
        EditorView.contentAttributes.of({ 'aria-label': SOURCE_LABEL }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          if (update.transactions.every((tr) => tr.annotation(fromProp))) return;
          props.current.onChange(update.state.sliceDoc());
        }),
      ],
    });
    const view = new EditorView({ state, parent: root, root });
    viewRef.current = view;
    return () => {
      live = false;
      checker.dispose();
      view.destroy();
      viewRef.current = null;
    };
  }, []);

  useEffect(() => {
    const view = viewRef.current;
    if (!view || view.state.sliceDoc() === text) return;
    const crlf = crlfOnly(text);
    // Positions count each line break as one character: compare the texts LF-joined.
    const change = minimalChange(view.state.doc.toString(), text.replace(/\r\n?/g, '\n'));
    view.dispatch({
      changes: { from: change.from, to: change.to, insert: Text.of(change.insert.split('\n')) },
      effects:
        crlf === (view.state.lineBreak === '\r\n') ? [] : separator.current.reconfigure(lineSeparator(crlf)),
      annotations: [fromProp.of(true), Transaction.addToHistory.of(false)],
    });
  }, [text]);

  useImperativeHandle(
    ref,
    () => ({
      reveal(from: number, to: number) {
        const view = viewRef.current;
        if (!view) return;
        const length = view.state.doc.length;
        view.dispatch({
          selection: { anchor: Math.min(from, length), head: Math.min(to, length) },
          scrollIntoView: true,
        });
        view.focus();
      },
    }),
    [],
  );

  return <div ref={hostRef} className="source-editor" />;
}
