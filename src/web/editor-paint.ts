/**
 * Work a keystroke starts but must not hold up: it runs after the frame that
 * paints the key. A task posted from an animation-frame callback runs once
 * that frame is painted (the frame's rendering comes right after its
 * callbacks), so the key is on screen before the work starts. A page whose
 * frames stop (a hidden tab draws none) still gets the work done, after
 * FALLBACK_MS.
 */
const FALLBACK_MS = 100;

/** Resolves after the next paint (or FALLBACK_MS when no frame comes). */
export function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(go, FALLBACK_MS);
    requestAnimationFrame(() => {
      const c = new MessageChannel();
      c.port1.onmessage = () => {
        c.port1.close();
        go();
      };
      c.port2.postMessage(null);
    });
  });
}
