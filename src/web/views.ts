/**
 * The views that need CodeMirror (the editor, the merge views): one module,
 * loaded when the first of them is opened or, once the list is drawn, in
 * the background (main.ts). One module rather than three keeps the page's
 * code in a few files: the bundler makes a shared file for every set of
 * modules that import the same code.
 */
export { TemplatePage } from './template-view.js';
export { rolePage } from './roles.js';
export { proposalHint, proposalsView } from './proposals.js';
