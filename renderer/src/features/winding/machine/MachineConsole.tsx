// The console: one line to the controller; what it answers shows in the machine log (the lines
// come as the machine's own log events). ↑ and ↓ walk back through the lines sent before.
import { type KeyboardEvent, useState } from 'react';

const HISTORY_LIMIT = 50;

export interface MachineConsoleProps {
  send(command: string): Promise<boolean>;
  /** Why the console is off; null when it is on. */
  disabledReason: string | null;
}

export function MachineConsole({ send, disabledReason }: MachineConsoleProps) {
  const [line, setLine] = useState('');
  const [history, setHistory] = useState<string[]>([]);
  /** Where ↑/↓ stand in the history: its length means the line being typed. */
  const [cursor, setCursor] = useState(0);
  const [sending, setSending] = useState(false);
  const off = disabledReason !== null;

  const submit = async () => {
    const command = line.trim();
    if (command === '' || sending) return;
    setSending(true);
    const next = [...history.filter((entry) => entry !== command), command].slice(-HISTORY_LIMIT);
    setHistory(next);
    setCursor(next.length);
    try {
      // A refused line stays in the box to be corrected; an answered one clears it.
      if (await send(command)) setLine('');
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
    event.preventDefault();
    const moved = Math.min(history.length, Math.max(0, cursor + (event.key === 'ArrowUp' ? -1 : 1)));
    setCursor(moved);
    setLine(history[moved] ?? '');
  };

  return (
    <form
      className="machine__console toolbar"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label>
        Command{' '}
        <input
          aria-label="Command"
          value={line}
          onChange={(event) => setLine(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder="M114"
          maxLength={200}
          disabled={off}
          autoComplete="off"
          spellCheck={false}
          title={disabledReason ?? 'One G-code line; ↑ and ↓ recall earlier lines'}
        />
      </label>
      <button type="submit" disabled={off || sending || line.trim() === ''}>
        Send command
      </button>
    </form>
  );
}
