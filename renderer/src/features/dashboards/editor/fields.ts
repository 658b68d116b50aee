// The settings forms of every widget and datasource type, as data: one list of fields per type
// (`dashboard-document.md` §3.2, §5.2), rendered by SettingsFields.

export type FieldSpec =
  | { key: string; label: string; kind: 'text' | 'url' | 'template' | 'longtext' | 'color'; hint?: string }
  | { key: string; label: string; kind: 'binding'; hint?: string }
  | {
      key: string;
      label: string;
      kind: 'number';
      min?: number;
      max?: number;
      step?: number;
      integer?: boolean;
      hint?: string;
    }
  | { key: string; label: string; kind: 'boolean'; defaultValue: boolean; hint?: string }
  | {
      key: string;
      label: string;
      kind: 'choice';
      options: readonly string[];
      numeric?: boolean;
      hint?: string;
    }
  | { key: string; label: string; kind: 'list'; hint?: string }
  | { key: string; label: string; kind: 'json'; hint?: string }
  | { key: string; label: string; kind: 'profile'; profile: 'credential' | 'broker'; hint?: string };

const FORMAT = ['auto', 'number', 'integer', 'percent', 'duration', 'date', 'datetime', 'json'] as const;

export const WIDGET_FIELDS: Record<string, FieldSpec[]> = {
  text: [
    { key: 'valuePath', label: 'Value', kind: 'binding' },
    {
      key: 'valueTemplate',
      label: 'Template',
      kind: 'template',
      hint: 'Replaces the value when not empty, e.g. {{ Winder.percent }} %',
    },
    { key: 'format', label: 'Format', kind: 'choice', options: FORMAT },
    { key: 'precision', label: 'Decimals', kind: 'number', min: 0, max: 10, integer: true },
    { key: 'unitText', label: 'Unit', kind: 'text' },
    { key: 'size', label: 'Size', kind: 'choice', options: ['regular', 'large'] },
  ],
  gauge: [
    { key: 'valuePath', label: 'Value', kind: 'binding' },
    { key: 'min', label: 'Minimum', kind: 'number' },
    { key: 'max', label: 'Maximum', kind: 'number' },
    { key: 'precision', label: 'Decimals', kind: 'number', min: 0, max: 10, integer: true },
    { key: 'unitText', label: 'Unit', kind: 'text' },
  ],
  indicator: [
    { key: 'valuePath', label: 'Value', kind: 'binding' },
    { key: 'onText', label: 'Text when on', kind: 'text' },
    { key: 'offText', label: 'Text when off', kind: 'text' },
    { key: 'onColor', label: 'Colour when on', kind: 'color' },
    { key: 'offColor', label: 'Colour when off', kind: 'color' },
  ],
  sparkline: [
    { key: 'valuePath', label: 'Value', kind: 'binding' },
    {
      key: 'seriesPaths',
      label: 'Series values',
      kind: 'list',
      hint: 'One binding a line; used instead of the value when given',
    },
    { key: 'seriesLabels', label: 'Series labels', kind: 'list', hint: 'One label a line' },
    { key: 'historyLength', label: 'Points kept', kind: 'number', min: 2, max: 1000, integer: true },
    { key: 'lineWidth', label: 'Line width', kind: 'number', min: 0.5, max: 10, step: 0.5 },
    { key: 'scaleMode', label: 'Scale', kind: 'choice', options: ['auto', 'fixed'] },
    { key: 'min', label: 'Minimum (fixed scale)', kind: 'number' },
    { key: 'max', label: 'Maximum (fixed scale)', kind: 'number' },
    { key: 'showLegend', label: 'Show legend', kind: 'boolean', defaultValue: false },
  ],
  table: [
    { key: 'valuePath', label: 'Rows', kind: 'binding' },
    {
      key: 'columns',
      label: 'Columns (JSON)',
      kind: 'json',
      hint: '[{"field": "name", "header": "Name", "align": "left", "format": "auto"}]; empty: one per key',
    },
    {
      key: 'rowsPerPage',
      label: 'Rows per page',
      kind: 'number',
      min: 0,
      max: 1000,
      integer: true,
      hint: '0 shows all',
    },
    { key: 'sortable', label: 'Sortable', kind: 'boolean', defaultValue: true },
    { key: 'striped', label: 'Striped', kind: 'boolean', defaultValue: true },
    { key: 'compact', label: 'Compact', kind: 'boolean', defaultValue: false },
    { key: 'emptyText', label: 'Text without rows', kind: 'text' },
  ],
  'bar-chart': [
    { key: 'valuePath', label: 'Rows', kind: 'binding' },
    { key: 'labelField', label: 'Label field', kind: 'text' },
    { key: 'valueField', label: 'Value field', kind: 'text' },
    {
      key: 'seriesFields',
      label: 'Series fields',
      kind: 'list',
      hint: 'One field a line; replaces the value field',
    },
    { key: 'orientation', label: 'Orientation', kind: 'choice', options: ['vertical', 'horizontal'] },
    { key: 'max', label: 'Full bar at', kind: 'number', hint: 'A longer bar widens the scale' },
    { key: 'showValues', label: 'Show values', kind: 'boolean', defaultValue: true },
    { key: 'showGrid', label: 'Show grid', kind: 'boolean', defaultValue: true },
    { key: 'animated', label: 'Animated', kind: 'boolean', defaultValue: true },
    { key: 'colors', label: 'Colours', kind: 'list', hint: 'One colour like #1a2b3c a line' },
  ],
  'status-list': [
    { key: 'valuePath', label: 'Items', kind: 'binding' },
    { key: 'labelField', label: 'Label field', kind: 'text' },
    { key: 'valueField', label: 'Value field', kind: 'text' },
    { key: 'statusField', label: 'Status field', kind: 'text' },
    { key: 'statusColors', label: 'Status colours (JSON)', kind: 'json', hint: '{"ok": "#16a34a"}' },
    { key: 'showIcons', label: 'Show icons', kind: 'boolean', defaultValue: true },
    { key: 'compact', label: 'Compact', kind: 'boolean', defaultValue: false },
  ],
  picture: [
    { key: 'src', label: 'Image URL', kind: 'url' },
    { key: 'srcPath', label: 'Image URL from', kind: 'binding' },
    { key: 'fitMode', label: 'Fit', kind: 'choice', options: ['contain', 'cover', 'fill'] },
    { key: 'refreshSeconds', label: 'Reload every (s)', kind: 'number', min: 0, max: 3600, integer: true },
    { key: 'altText', label: 'Description (alt text)', kind: 'text' },
  ],
  html: [
    {
      key: 'mode',
      label: 'Mode',
      kind: 'choice',
      options: ['text', 'safe_html', 'trusted_html'],
      hint: 'trusted_html needs the TRUSTED execution mode',
    },
    { key: 'html', label: 'Content', kind: 'longtext' },
    { key: 'htmlPath', label: 'Content from', kind: 'binding' },
  ],
  base: [
    { key: 'html', label: 'HTML', kind: 'longtext' },
    { key: 'style', label: 'CSS', kind: 'longtext' },
    { key: 'script', label: 'Script', kind: 'longtext', hint: 'Makes the widget trusted' },
    {
      key: 'resources',
      label: 'Resources',
      kind: 'list',
      hint: 'http(s) URLs, one a line; makes the widget trusted',
    },
  ],
};

const HEADERS: FieldSpec = {
  key: 'headers',
  label: 'Headers (JSON)',
  kind: 'json',
  hint: '{"Accept": "application/json"}',
};
const CREDENTIAL: FieldSpec = {
  key: 'credentialProfileId',
  label: 'Credential profile',
  kind: 'profile',
  profile: 'credential',
};
const STALE: FieldSpec = {
  key: 'staleAfterSeconds',
  label: 'Stale after (s)',
  kind: 'number',
  min: 0,
  max: 86400,
  integer: true,
  hint: '0 = never',
};

export const DATASOURCE_FIELDS: Record<string, FieldSpec[]> = {
  static: [
    { key: 'value', label: 'Value (JSON)', kind: 'json' },
    {
      key: 'refresh',
      label: 'Repeat every (s)',
      kind: 'number',
      min: 0,
      max: 86400,
      integer: true,
      hint: '0 = once',
    },
    STALE,
  ],
  clock: [
    { key: 'refresh', label: 'Tick every (s)', kind: 'number', min: 1, max: 3600, integer: true },
    STALE,
  ],
  machine: [STALE],
  http: [
    { key: 'url', label: 'URL', kind: 'url' },
    { key: 'method', label: 'Method', kind: 'choice', options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    { key: 'parser', label: 'Parser', kind: 'choice', options: ['json', 'text', 'csv'] },
    HEADERS,
    { key: 'body', label: 'Body', kind: 'longtext' },
    { key: 'timeoutMs', label: 'Timeout (ms)', kind: 'number', min: 1000, max: 60000, integer: true },
    { key: 'refresh', label: 'Poll every (s)', kind: 'number', min: 1, max: 86400, integer: true },
    CREDENTIAL,
    STALE,
  ],
  sse: [
    { key: 'url', label: 'URL', kind: 'url' },
    { key: 'parser', label: 'Parser', kind: 'choice', options: ['json', 'text'] },
    HEADERS,
    {
      key: 'idleTimeoutMs',
      label: 'Idle timeout (ms)',
      kind: 'number',
      min: 5000,
      max: 3600000,
      integer: true,
    },
    { key: 'authPlacement', label: 'Credential goes in', kind: 'choice', options: ['header', 'query'] },
    { key: 'queryParamName', label: 'Query parameter', kind: 'text' },
    CREDENTIAL,
    STALE,
  ],
  websocket: [
    { key: 'url', label: 'URL (ws:// or wss://)', kind: 'url' },
    { key: 'parser', label: 'Parser', kind: 'choice', options: ['json', 'text'] },
    HEADERS,
    { key: 'protocols', label: 'Subprotocols', kind: 'list' },
    {
      key: 'idleTimeoutMs',
      label: 'Idle timeout (ms)',
      kind: 'number',
      min: 5000,
      max: 3600000,
      integer: true,
    },
    { key: 'authPlacement', label: 'Credential goes in', kind: 'choice', options: ['header', 'query'] },
    { key: 'queryParamName', label: 'Query parameter', kind: 'text' },
    CREDENTIAL,
    STALE,
  ],
  mqtt: [
    { key: 'brokerProfileId', label: 'Broker profile', kind: 'profile', profile: 'broker' },
    { key: 'topic', label: 'Topic', kind: 'text' },
    { key: 'qos', label: 'QoS', kind: 'choice', options: ['0', '1'], numeric: true },
    { key: 'parser', label: 'Parser', kind: 'choice', options: ['json', 'text'] },
    { key: 'keepaliveSeconds', label: 'Keepalive (s)', kind: 'number', min: 5, max: 3600, integer: true },
    STALE,
  ],
};
