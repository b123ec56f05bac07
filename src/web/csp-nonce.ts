import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

/**
 * CodeMirror writes its styles in a <style> element, which the page's
 * content security policy (`style-src 'self'`) refuses unless it carries the
 * nonce the service put in index.html's `<meta name="csp-nonce">` for this
 * load. The compare and merge views sit in the document and need it; the
 * editor sits in a shadow root, whose adopted stylesheets need none, and
 * takes it too so that it would keep its styles in the document. Without
 * that meta nothing is added.
 */
export function styleNonce(): Extension {
  const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
  return nonce ? EditorView.cspNonce.of(nonce) : [];
}
