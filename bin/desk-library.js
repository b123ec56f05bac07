#!/usr/bin/env node
// The command line: runs the compiled CLI (npm run build makes dist/). The
// module runs main() itself only when it is the script Node started, so
// imported here it waits for this call.
let cli;
try {
  cli = await import('../dist/src/cli.js');
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
  process.stderr.write('desk-library: not built yet; run `npm run build` first\n');
  process.exit(2);
}
process.exitCode = await cli.main(process.argv.slice(2), cli.processIo);
