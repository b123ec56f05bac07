/**
 * The role check lives in the format layer (src/template/kit.ts) so the
 * settings page runs the same one; the library's modules import it from here.
 */
export { type Kit, validateKit, validateKitText, validateRoleMd } from '../../template/kit.js';
