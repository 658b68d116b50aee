// What "New definition" can start from: a blank definition or one of the example parts shipped in
// resources/examples/ (bundled with the page, so a browser on the LAN has them too).

const files = import.meta.glob<string>('../../../../../resources/examples/*.wind', {
  query: '?raw',
  import: 'default',
  eager: true,
});

export interface Template {
  /** What the chooser shows. */
  label: string;
  /** The file name the new definition gets. */
  name: string;
  text: string;
}

/**
 * A blank definition: the format version and an empty layer list, the mandrel, tow and feed rate
 * still to be filled in (their fields say "Field required" until they are).
 */
export const BLANK: Template = {
  label: 'Blank definition',
  name: 'untitled.wind',
  text: '{\n  "schemaVersion": "1.0",\n  "layers": [],\n  "mandrelParameters": {},\n  "towParameters": {}\n}\n',
};

const LABELS: Record<string, string> = {
  'simple-cylinder.wind': 'Example: hoop-only cylinder',
  'helical-tube.wind': 'Example: helical tube',
  'multi-layer-tube.wind': 'Example: multi-layer tube',
  'reducing-cone.wind': 'Example: reducing cone',
  'vessel.wind': 'Example: pressure vessel',
};

export const EXAMPLES: readonly Template[] = Object.entries(files)
  .map(([path, text]) => {
    const name = path.slice(path.lastIndexOf('/') + 1);
    return { label: LABELS[name] ?? `Example: ${name}`, name, text };
  })
  .sort((a, b) => a.label.localeCompare(b.label));

export const TEMPLATES: readonly Template[] = [BLANK, ...EXAMPLES];
