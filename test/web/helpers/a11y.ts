import type { Page } from 'playwright-core';

/**
 * Accessibility checks run in the page (as a string: tsx would wrap named functions in a helper the
 * page does not have). Returns a list of problems: form controls without an accessible name, and
 * text whose contrast with its background is under WCAG AA (4.5:1; 3:1 for large text).
 */
export async function a11yProblems(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const problems = [];
    for (const el of document.querySelectorAll('input, select, textarea, button, a[href]')) {
      if (el.type === 'hidden' || el.closest('[hidden]')) continue;
      const name = (el.getAttribute('aria-label') || (el.labels && [...el.labels].map((l) => l.textContent).join(' ')) ||
        (el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent : '') || el.getAttribute('title') || '').trim();
      if (!name) problems.push('no accessible name: ' + el.outerHTML.slice(0, 120));
    }
    const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const p = m[1].split(',').map((x) => parseFloat(x)); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
    const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
    const bgOf = (el) => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0.5) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
    const seen = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || seen.has(el) || !n.textContent.trim()) continue;
      seen.add(el);
      const cs = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      if (cs.visibility === 'hidden' || r.width <= 1 || r.height <= 1 || el.closest('.sr-only, option, datalist')) continue;
      const fg = parse(cs.color); if (!fg) continue;
      const bg = bgOf(el);
      const l1 = lum(fg), l2 = lum(bg);
      const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      const size = parseFloat(cs.fontSize); const bold = parseInt(cs.fontWeight, 10) >= 700;
      const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
      if (ratio < need) problems.push('contrast ' + ratio.toFixed(2) + ' < ' + need + ': "' + n.textContent.trim().slice(0, 40) + '" (' + cs.color + ' on rgb(' + bg.r + ',' + bg.g + ',' + bg.b + '))');
    }
    return problems;
  })()`)) as string[];
}
