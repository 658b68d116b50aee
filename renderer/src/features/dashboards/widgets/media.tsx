// Picture, HTML and the framed widgets (§5.2, §5.3).
import { useEffect, useRef, useState } from 'react';
import { isObject } from '../document.ts';
import type { HubSnapshot } from '../realtime/hub.ts';
import { WidgetValue } from './basic.tsx';
import { bind, isNumber, isString, setting } from './bound.ts';
import type { WidgetProps } from './props.ts';
import { safeImageUrl, sanitizeHtml } from './sanitize.ts';

/** The frame document the core serves for trusted widgets, with its own Content-Security-Policy. */
export const WIDGET_FRAME_URL = '/widget-frame';
/** The same frame document under a policy that runs no script of the content (untrusted `base`). */
export const STATIC_WIDGET_FRAME_URL = '/widget-frame/static';

/** A bound key wins over its fixed twin unless it resolves to missing or null (§5.1). */
function boundOrFixed(snapshot: HubSnapshot, settings: Record<string, unknown> | undefined, key: string) {
  const bound = bind(snapshot, settings?.[`${key}Path`]);
  if (bound.value !== undefined && bound.value !== null) return bound;
  return { ...bound, value: settings?.[key] };
}

export function PictureWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const source = boundOrFixed(snapshot, s, 'src');
  const url = safeImageUrl(source.value);
  const refresh = setting(s, 'refreshSeconds', 0, isNumber);
  const [stamp, setStamp] = useState<number | null>(null);
  useEffect(() => {
    if (refresh <= 0) return;
    const timer = setInterval(() => setStamp(Date.now()), refresh * 1000);
    return () => clearInterval(timer);
  }, [refresh]);
  if (!url) return <WidgetValue note={source.note}>{'—'}</WidgetValue>;
  let src = url;
  if (stamp !== null && !url.startsWith('data:')) {
    const withStamp = new URL(url);
    withStamp.searchParams.set('_ts', String(stamp));
    src = withStamp.href;
  }
  const fit = setting<string>(s, 'fitMode', 'contain', isString);
  return (
    <WidgetValue note={source.note}>
      <img
        className={`widget-picture widget-picture--${['cover', 'fill'].includes(fit) ? fit : 'contain'}`}
        src={src}
        alt={setting(s, 'altText', widget.title ?? '', isString)}
        referrerPolicy="no-referrer"
      />
    </WidgetValue>
  );
}

function SafeHtml({ html }: { html: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.replaceChildren(sanitizeHtml(html));
  }, [html]);
  return <div ref={box} className="widget-html" />;
}

/** What every frame is told on load and on each update (§5.3). */
function updateMessage(snapshot: HubSnapshot, changedId: string | null) {
  const datasources: Record<string, unknown> = {};
  const titles: Record<string, string> = {};
  for (const [id, state] of snapshot.states) {
    if (state.hasValue) datasources[id] = state.value;
    titles[state.title] = id;
  }
  const changed = changedId ? snapshot.states.get(changedId) : undefined;
  return {
    type: 'towpath:update',
    datasourceId: changed?.id ?? null,
    datasourceTitle: changed?.title ?? null,
    value: changed?.value ?? null,
    snapshot: { datasources, titles },
  };
}

/**
 * A widget's own document in a sandboxed frame (never allow-same-origin: an opaque origin without the
 * app's DOM, storage or session). The frame loads one of the core's frame documents, which takes its
 * content once from the first `towpath:content` message and then hears `towpath:update` as §5.3
 * describes; which document decides whether the content's scripts may run.
 */
export function WidgetFrame({
  title,
  content,
  sandbox,
  snapshot,
  src = WIDGET_FRAME_URL,
}: {
  title: string;
  content: string;
  sandbox: string;
  snapshot: HubSnapshot;
  src?: string;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [loaded, setLoaded] = useState(false);
  const sent = useRef(new Map<string, number>());
  useEffect(() => {
    const target = frame.current?.contentWindow;
    if (!loaded || !target) return;
    for (const [id, state] of snapshot.states) {
      if (sent.current.get(id) === state.sequence) continue;
      sent.current.set(id, state.sequence);
      target.postMessage(updateMessage(snapshot, id), '*');
    }
  }, [loaded, snapshot]);
  return (
    <iframe
      ref={frame}
      className="widget-frame"
      title={title}
      sandbox={sandbox}
      src={src}
      onLoad={() => {
        frame.current?.contentWindow?.postMessage({ type: 'towpath:content', html: content }, '*');
        sent.current.clear();
        frame.current?.contentWindow?.postMessage(updateMessage(snapshot, null), '*');
        setLoaded(true);
      }}
    />
  );
}

/** `base` content as §5.3 assembles it. */
export function baseDocument(settings: Record<string, unknown> | undefined): string {
  const text = (key: string) => (typeof settings?.[key] === 'string' ? (settings[key] as string) : '');
  const resources = Array.isArray(settings?.resources)
    ? settings.resources.filter((r): r is string => typeof r === 'string')
    : [];
  const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const tags = resources.map((url) =>
    new URL(url, 'http://x').pathname.endsWith('.css')
      ? `<link rel="stylesheet" href="${escapeAttr(url)}">`
      : `<script src="${escapeAttr(url)}"></script>`,
  );
  // `</` inside the style and script bodies would end them early; the author's text is kept otherwise.
  const style = text('style').replace(/<\/style/gi, '<\\/style');
  const script = text('script').replace(/<\/script/gi, '<\\/script');
  return `<!doctype html><meta charset="utf-8"><style>${style}</style>${tags.join('')}${text('html')}<script>${script}</script>`;
}

function nonEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}

export function HtmlWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const source = boundOrFixed(snapshot, s, 'html');
  const html =
    typeof source.value === 'string'
      ? source.value
      : source.value === undefined || source.value === null
        ? ''
        : String(source.value);
  const mode = setting<string>(s, 'mode', 'text', isString);
  if (mode === 'trusted_html')
    return (
      <WidgetFrame
        title={widget.title || 'HTML'}
        content={html}
        sandbox="allow-scripts allow-popups"
        snapshot={snapshot}
      />
    );
  if (mode === 'safe_html')
    return (
      <WidgetValue note={source.note}>
        <SafeHtml html={html} />
      </WidgetValue>
    );
  return (
    <WidgetValue note={source.note}>
      <p className="widget-html widget-html--text">{html === '' ? '—' : html}</p>
    </WidgetValue>
  );
}

export function BaseWidget({ widget, snapshot }: WidgetProps) {
  const s = widget.settings;
  const trusted = nonEmpty(s?.script) || nonEmpty(s?.resources);
  const content = baseDocument(s);
  // Untrusted `base` runs no script of its own: its HTML and style only. A `srcdoc` frame would
  // inherit the app's policy and lose the author's inline style, so it gets the frame document
  // whose policy runs only the loader that writes the content in.
  return (
    <WidgetFrame
      title={widget.title || 'Custom'}
      content={content}
      sandbox="allow-scripts"
      snapshot={snapshot}
      src={trusted ? WIDGET_FRAME_URL : STATIC_WIDGET_FRAME_URL}
    />
  );
}
