// Prints what chokidar (default options) reports for a directory, one
// "EVENT path-relative-to-the-root" line each, and READY once its initial
// scan is done. Run by chokidar.sh; CommonJS so that node runs it as is.
'use strict';
const path = require('path');
const chokidar = require('chokidar');

const root = process.argv[2];
const out = (line) => process.stdout.write(line + '\n');

chokidar.watch(root)
	.on('all', (ev, p) => out(`${ev} ${path.relative(root, p) || '.'}`))
	.on('error', (err) => out(`error ${err.message}`))
	.on('ready', () => out('READY'));
