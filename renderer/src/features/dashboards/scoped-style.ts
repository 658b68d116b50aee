// A dashboard's own CSS (`settings.style`, document §6): confined to its view with `@scope`, never
// affecting the app around it. The text is parsed into a constructable stylesheet first and only
// whole rules are re-serialised inside the scope, so a stray `}` cannot close the scope early; the
// sheet is adopted by the document (CSSOM, not an inline <style>, so the app's CSP stays strict).
import { useEffect, useId } from 'react';

export function scopedCss(style: string, scope: string): string | null {
  if (typeof CSSStyleSheet === 'undefined' || !('replaceSync' in CSSStyleSheet.prototype)) return null;
  const probe = new CSSStyleSheet();
  try {
    probe.replaceSync(style);
  } catch {
    return null;
  }
  const rules = [...probe.cssRules].map((rule) => rule.cssText);
  if (rules.length === 0) return null;
  return `@scope ([data-dashboard-scope="${scope}"]) {\n${rules.join('\n')}\n}`;
}

/** Applies `style` to the element carrying the returned `data-dashboard-scope` value while mounted. */
export function useScopedStyle(style: unknown): string {
  const scope = useId().replace(/[^A-Za-z0-9_-]/g, '');
  useEffect(() => {
    if (typeof style !== 'string' || style.trim() === '') return;
    const css = scopedCss(style, scope);
    if (!css) return;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return () => {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    };
  }, [style, scope]);
  return scope;
}
