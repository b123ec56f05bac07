/**
 * Reading the template editor (CodeMirror 6) from a browser test. Its text
 * box is a contenteditable that draws only the lines in view, so the text
 * and the cursor are read from the editor's state: CodeMirror keeps its view
 * on the content element (`cmTile.root.view`, what `EditorView.findFromDOM`
 * reads). If a CodeMirror upgrade moves it, these throw rather than guess.
 */
import type { Locator, Page } from 'playwright-core';

/** The editor's text box, by its accessible name. */
export function sourceBox(page: Page, name: string): Locator {
  return page.getByRole('textbox', { name: `Source of ${name}` });
}

interface ViewLike {
  state: { doc: { toString(): string; lineAt(pos: number): { number: number; from: number } }; selection: { main: { head: number } } };
}

/** The whole text in the editor (not only the lines drawn). */
export function editorText(page: Page, name: string): Promise<string> {
  return sourceBox(page, name).evaluate((el) => {
    const view = (el as unknown as { cmTile?: { root?: { view?: ViewLike } } }).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view on the text box (cmTile.root.view)');
    return view.state.doc.toString();
  });
}

/** Replaces the whole text as one typed edit (CodeMirror's `input` event), so the page checks it as it would typing. */
export async function setEditorText(page: Page, name: string, text: string): Promise<void> {
  await sourceBox(page, name).evaluate((el, text) => {
    const view = (el as unknown as { cmTile?: { root?: { view?: EditView } } }).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view on the text box (cmTile.root.view)');
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input' });
  }, text);
}

interface EditView {
  state: { doc: { length: number } };
  dispatch(tr: { changes: { from: number; to: number; insert: string }; userEvent: string }): void;
}

/** The cursor as a 1-based line and column. */
export function editorCursor(page: Page, name: string): Promise<{ line: number; column: number }> {
  return sourceBox(page, name).evaluate((el) => {
    const view = (el as unknown as { cmTile?: { root?: { view?: ViewLike } } }).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view on the text box (cmTile.root.view)');
    const head = view.state.selection.main.head;
    const line = view.state.doc.lineAt(head);
    return { line: line.number, column: head - line.from + 1 };
  });
}

/**
 * Puts the cursor at the end of the first line with `text` in it and focuses
 * the editor, so what the test types next lands there. Set through the
 * view, not by clicking: lines out of view are not drawn.
 */
export async function cursorToLineEnd(page: Page, name: string, text: string): Promise<void> {
  await sourceBox(page, name).evaluate((el, text) => {
    const view = (el as unknown as { cmTile?: { root?: { view?: CursorView } } }).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view on the text box (cmTile.root.view)');
    const doc = view.state.doc.toString();
    const at = doc.indexOf(text);
    if (at < 0) throw new Error(`no line with ${text}`);
    const end = doc.indexOf('\n', at);
    view.dispatch({ selection: { anchor: end < 0 ? doc.length : end }, scrollIntoView: true });
    view.focus();
  }, text);
}

interface CursorView {
  state: { doc: { toString(): string } };
  dispatch(tr: { selection: { anchor: number }; scrollIntoView: boolean }): void;
  focus(): void;
}

/** The whole text of any of the page's CodeMirror editors (the role page's role.md, kit.json), by its text box. */
export function boxText(box: Locator): Promise<string> {
  return box.evaluate((el) => {
    const view = (el as unknown as { cmTile?: { root?: { view?: ViewLike } } }).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view on the text box (cmTile.root.view)');
    return view.state.doc.toString();
  });
}

/** Replaces the whole text of one of the page's CodeMirror editors as one typed edit. */
export async function setBoxText(box: Locator, text: string): Promise<void> {
  await box.evaluate((el, text) => {
    const view = (el as unknown as { cmTile?: { root?: { view?: EditView } } }).cmTile?.root?.view;
    if (!view) throw new Error('no CodeMirror view on the text box (cmTile.root.view)');
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input' });
  }, text);
}
