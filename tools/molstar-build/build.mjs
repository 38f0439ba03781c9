// Builds static/vendor/molstar-share-<version>/molstar.js from entry.js (see README.md).
// Source edits, made while bundling (MOLSTAR_EDITS; the build fails if one no longer
// applies):
// - Mol*'s element-symbol cache is filled on use instead of precomputed for every 1-3
//   letter string (238,328 entries, 0.1-0.3 s of every page load); ElementSymbol() returns
//   the same strings either way.
// - A shader program compiles its two shaders when it is first linked, not when it is
//   created: Mol* creates six variants of every program (colour, picking, depth, marking,
//   emissive, tracing) and links only those a frame needs, but compiled all twelve
//   shaders at once (in software WebGL the GPU process's time, on the first frame).
// - A resize the canvas is asked for redraws it only if its drawing buffer's size changed:
//   the canvas's ResizeObserver notice (debounced, 50-150 ms) of the viewer being laid out
//   came during the scene's load or after its first picture, and Mol* drew the same
//   picture again (in software WebGL, as long as the first frame took).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const version = JSON.parse(readFileSync(join(here, 'node_modules/molstar/package.json'))).version;
const out = join(here, '../../static/vendor', `molstar-share-${version}`);

const MOLSTAR_EDITS = {
  'mol-model/structure/model/types.js': [
    [/const _esCache = \(function \(\) \{[\s\S]*?\n\}\(\)\);/, 'const _esCache = Object.create(null);'],
    ['return _esCache[s] || s.toUpperCase();', 'return _esCache[s] || (_esCache[s] = s.toUpperCase());'],
  ],
  'mol-gl/webgl/program.js': [
    ["const vertShader = getShader('vert', shaderCode.vert);\n    const fragShader = getShader('frag', shaderCode.frag);",
     'let vertShader = null;\n    let fragShader = null;'],
    ['    function link() {\n        vertShader.attach(program);',
     "    function link() {\n        if (vertShader === null) {\n            vertShader = getShader('vert', shaderCode.vert);\n            fragShader = getShader('frag', shaderCode.frag);\n        }\n        vertShader.attach(program);"],
    ['            vertShader.destroy();\n            fragShader.destroy();',
     '            if (vertShader !== null) {\n                vertShader.destroy();\n                fragShader.destroy();\n            }'],
  ],
  'mol-canvas3d/canvas3d.js': [
    ['                handleResize(false);\n                resizeRequested = false;\n                resized = true;',
     '                const size = webgl.getDrawingBufferSize();\n                const [oldWidth, oldHeight] = [size.width, size.height];\n                handleResize(false);\n                resizeRequested = false;\n                const newSize = webgl.getDrawingBufferSize();\n                resized = newSize.width !== oldWidth || newSize.height !== oldHeight;'],
  ],
};

const edits = {
  name: 'molstar-edits',
  setup(b) {
    b.onLoad({ filter: /molstar[\\/]lib[\\/].*\.js$/ }, (args) => {
      const key = Object.keys(MOLSTAR_EDITS).find((k) => args.path.endsWith(k));
      if (!key) return undefined;
      let text = readFileSync(args.path, 'utf8');
      for (const [from, to] of MOLSTAR_EDITS[key]) {
        const next = text.replace(from, to);
        if (next === text) throw new Error(`edit not applied in ${key}: ${from}`);
        text = next;
      }
      return { contents: text, loader: 'js' };
    });
  },
};

mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [join(here, 'entry.js')],
  bundle: true,
  minify: process.env.MINIFY !== '0',
  format: 'iife',
  target: 'es2020',
  legalComments: 'eof',
  define: { 'process.env.NODE_ENV': '"production"' },
  outfile: join(out, 'molstar.js'),
  plugins: [edits],
  metafile: true,
  logLevel: 'warning',
});
copyFileSync(join(here, 'node_modules/molstar/build/viewer/molstar.css'), join(out, 'molstar.css'));
copyFileSync(join(here, 'node_modules/molstar/LICENSE'), join(out, 'LICENSE'));
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`molstar ${version}: ${out}/molstar.js, ${(bytes / 1024).toFixed(0)} KB`);
