// `safe_html` (§5.2): only the listed elements and attributes survive; dangerous elements go with
// their content, other unknown elements are unwrapped to their text. Parsing happens in an inert
// document (DOMParser runs no scripts and loads nothing), so only the cleaned nodes reach the page.

const KEEP = new Set(
  'p br b strong i em u s small sub sup span div h1 h2 h3 h4 h5 h6 ul ol li table thead tbody tr th td pre code blockquote hr a img'.split(
    ' ',
  ),
);
const DROP = new Set('script style template iframe object embed svg math form'.split(' '));

export function safeImageUrl(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  if (/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$/.test(url)) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

function safeLink(url: string): string | null {
  try {
    const parsed = new URL(url);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

function clean(source: Node, into: Node, doc: Document): void {
  for (const child of [...source.childNodes]) {
    if (child.nodeType === Node.TEXT_NODE) {
      into.appendChild(doc.createTextNode(child.textContent ?? ''));
      continue;
    }
    if (child.nodeType !== Node.ELEMENT_NODE) continue;
    const element = child as Element;
    const tag = element.localName;
    if (DROP.has(tag)) continue;
    if (!KEEP.has(tag)) {
      clean(element, into, doc);
      continue;
    }
    const out = doc.createElement(tag);
    const title = element.getAttribute('title');
    if (title !== null) out.setAttribute('title', title);
    if (tag === 'a') {
      const href = safeLink(element.getAttribute('href') ?? '');
      if (href) {
        out.setAttribute('href', href);
        out.setAttribute('target', '_blank');
        out.setAttribute('rel', 'noopener noreferrer');
      }
    }
    if (tag === 'img') {
      const src = safeImageUrl(element.getAttribute('src'));
      if (!src) continue;
      out.setAttribute('src', src);
      out.setAttribute('alt', element.getAttribute('alt') ?? '');
      for (const name of ['width', 'height']) {
        const v = element.getAttribute(name);
        if (v !== null && /^[0-9]{1,5}$/.test(v)) out.setAttribute(name, v);
      }
    }
    if (tag === 'td' || tag === 'th')
      for (const name of ['colspan', 'rowspan']) {
        const v = element.getAttribute(name);
        if (v !== null && /^[0-9]{1,3}$/.test(v)) out.setAttribute(name, v);
      }
    clean(element, out, doc);
    into.appendChild(out);
  }
}

/** The cleaned content as a fragment of `doc` (the live page's document). */
export function sanitizeHtml(html: string, doc: Document = document): DocumentFragment {
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  const fragment = doc.createDocumentFragment();
  clean(parsed.body, fragment, doc);
  return fragment;
}
