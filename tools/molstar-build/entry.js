/* The Mol* build of the 3D pages: Mol* 5.11.0's viewer (its React UI and default plugin
   spec) with only the MolViewSpec extension, and the calls static/js/structure.js makes
   (Viewer.create with the options it passes, loadMvsData, loadStructureFromUrl,
   structureInteractivity, plugin). Mol*'s full viewer bundle also carries a dozen extensions this page never loads
   (MP4/geometry export, DNATCO, RCSB/PDBe reports, tunnels, G3D, ...) and their code runs
   on every page load. Built by build.sh into static/vendor/molstar-share-5.11.0/. */
import { createPluginUI } from 'molstar/lib/mol-plugin-ui/index.js';
import { renderReact18 } from 'molstar/lib/mol-plugin-ui/react18.js';
import { DefaultPluginUISpec } from 'molstar/lib/mol-plugin-ui/spec.js';
import { PluginConfig } from 'molstar/lib/mol-plugin/config.js';
import { PluginSpec } from 'molstar/lib/mol-plugin/spec.js';
import { MolViewSpec } from 'molstar/lib/extensions/mvs/behavior.js';
import { loadMvsData, loadStructureFromUrl } from 'molstar/lib/extensions/plugin/loaders.js';
import { applyStructureInteractivity } from 'molstar/lib/extensions/plugin/interactivity.js';
import { PLUGIN_VERSION } from 'molstar/lib/mol-plugin/version.js';
import { PostprocessingParams } from 'molstar/lib/mol-canvas3d/passes/postprocessing.js';
import { ParamDefinition } from 'molstar/lib/mol-util/param-definition.js';
import 'molstar/lib/mol-util/polyfill.js';

function spec(o) {
  const base = DefaultPluginUISpec();
  return {
    ...base,
    behaviors: [...base.behaviors, PluginSpec.Behavior(MolViewSpec)],
    // The canvas's props from its creation on: the canvas draws from then (empty), and a
    // pass it draws once is compiled (in software WebGL, seconds) even if later turned off.
    canvas3d: { illumination: { enabled: false }, ...o.canvas3d },
    layout: {
      initial: {
        isExpanded: false,
        showControls: false,
        regionState: { bottom: 'full', left: 'collapsed', right: 'full', top: 'full' },
      },
    },
    components: {
      ...base.components,
      controls: { ...(base.components && base.components.controls),
        top: o.layoutShowSequence === false ? 'none' : undefined, bottom: 'none', left: 'none' },
      remoteState: 'none',
    },
    config: [
      [PluginConfig.General.DisableAntialiasing, !!o.disableAntialiasing],
      ...(o.transparency ? [[PluginConfig.General.Transparency, o.transparency]] : []),
      ...(o.pixelScale ? [[PluginConfig.General.PixelScale, o.pixelScale]] : []),
      [PluginConfig.Viewport.ShowExpand, o.viewportShowExpand !== false],
      [PluginConfig.Viewport.ShowSelectionMode, !!o.viewportShowSelectionMode],
      [PluginConfig.Viewport.ShowAnimation, !!o.viewportShowAnimation],
      [PluginConfig.VolumeStreaming.Enabled, false],
      [PluginConfig.Download.DefaultPdbProvider, 'pdbe'],
      [PluginConfig.Download.DefaultEmdbProvider, 'pdbe'],
    ],
  };
}

class Viewer {
  constructor(plugin) { this.plugin = plugin; }
  static async create(target, options) {
    const plugin = await createPluginUI({ target, spec: spec(options || {}), render: renderReact18 });
    return new Viewer(plugin);
  }
  // Nothing is drawn while a scene loads: Mol*'s MolViewSpec loader first resets the canvas
  // to Mol*'s defaults (ambient occlusion on) and only then applies the scene's canvas, so
  // a frame drawn in between renders the old or empty scene with occlusion (in software
  // WebGL, about a second of compiling and drawing passes the picture never shows). The
  // loop starts again, and draws the new scene, when the load has finished or failed (as
  // Mol*'s own screenshot helper stops and restarts it).
  async loadMvsData(data, format, options) {
    const loop = this.plugin.animationLoop;
    loop.stop({ noDraw: true });
    try {
      return await loadMvsData(this.plugin, data, format, options);
    } finally {
      loop.start();
    }
  }
  loadStructureFromUrl(url, format, isBinary, options) {
    return loadStructureFromUrl(this.plugin, url, format, isBinary, options);
  }
  structureInteractivity(options) { return applyStructureInteractivity(this.plugin, options); }
}

// Mol*'s default edge smoothing (SMAA), for a page that creates the canvas without it.
const antialiasing = ParamDefinition.getDefaultValues(PostprocessingParams).antialiasing;

window.molstar = { Viewer, version: PLUGIN_VERSION, antialiasing };
