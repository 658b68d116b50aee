// The Source tab's panel: the definition's text in the editor, and its problems listed below it,
// each a button that selects the offending token, so they can be reached without a pointer.
//
// <SourceTab text onChange onUndo? onRedo? />  — the props of SourceEditor (see there).
import { useId, useRef, useState } from 'react';
import {
  SourceEditor,
  type SourceEditorHandle,
  type SourceEditorProps,
  type SourceProblem,
} from './SourceEditor.tsx';
import '../../../../ui/forms.css';
import './source.css';

export type SourceTabProps = Pick<SourceEditorProps, 'text' | 'onChange' | 'onUndo' | 'onRedo'>;

export function SourceTab(props: SourceTabProps) {
  const editor = useRef<SourceEditorHandle>(null);
  const [problems, setProblems] = useState<SourceProblem[] | null>(null);
  return (
    <div className="source-tab">
      <SourceEditor ref={editor} {...props} onDiagnostics={setProblems} />
      <ProblemList
        problems={problems}
        onReveal={(problem) => editor.current?.reveal(problem.from, problem.to)}
      />
    </div>
  );
}

function ProblemList({
  problems,
  onReveal,
}: {
  problems: SourceProblem[] | null;
  onReveal(problem: SourceProblem): void;
}) {
  const id = useId();
  const n = problems?.length ?? 0;
  const summary =
    problems === null ? 'Checking…' : n === 0 ? 'No problems' : `${n} problem${n === 1 ? '' : 's'}`;
  return (
    <section className="source-problems" aria-label="Source problems">
      <p role="status">{summary}</p>
      {n > 0 && (
        <ul>
          {problems?.map((problem, k) => (
            <li key={`${problem.from}-${k}`}>
              <button
                type="button"
                className="button"
                aria-describedby={`${id}-${k}`}
                onClick={() => onReveal(problem)}
              >
                Line {problem.line}, column {problem.column}
              </button>
              <pre id={`${id}-${k}`} className="source-problems__message">
                {problem.message}
              </pre>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
