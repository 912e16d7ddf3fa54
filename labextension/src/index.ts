/**
 * JupyterLab plugin of MLE-STAR: the "MLE-STAR" notebook toolbar button (declared in the
 * settings schema under `jupyter.lab.toolbars`), the run dialog, and the run panel opened
 * beside the notebook.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification, showErrorMessage } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { LabIcon } from '@jupyterlab/ui-components';

import { MlestarAPI, MlestarAPIError } from './api';
import { askRunSettings } from './dialog';
import { agentBlockIds, defaultTaskDir } from './form';
import { blockIdOf } from './matching';
import { IDescribeRun, latestRun } from './models';
import { RunPanel } from './panel';
import { registerTaskImport } from './taskImport';
import mlestarSvg from '../style/icons/mlestar.svg';

/** Command ids. */
export namespace CommandIDs {
  /** Open the run dialog for the current notebook and start a run. */
  export const run = 'mlestar-jupyter:run';
  /** Open the panel of the current notebook's latest run. */
  export const openPanel = 'mlestar-jupyter:open-panel';
  /** The run dialog for the active cell only (`--block`), from the cell context menu. */
  export const refineCell = 'mlestar-jupyter:refine-cell';
}

const PLUGIN_ID = 'mlestar-jupyter:plugin';

export const mlestarIcon = new LabIcon({ name: 'mlestar-jupyter:icon', svgstr: mlestarSvg });

/** User settings (see `labextension/schema/plugin.json`). */
interface ISettings {
  pollInterval: number;
  defaultBackend: string;
  defaultModel: string;
  defaultTimeBudget: string;
  defaultMode: string;
  openPanelOnReopen: boolean;
}

const DEFAULTS: ISettings = {
  pollInterval: 1500,
  defaultBackend: 'offline',
  defaultModel: '',
  defaultTimeBudget: '30',
  defaultMode: 'autopilot',
  openPanelOnReopen: true
};

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Run the MLE-STAR agent on a notebook and review its cell proposals.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ISettingRegistry, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    settingRegistry: ISettingRegistry | null,
    palette: ICommandPalette | null
  ) => {
    const settings: ISettings = { ...DEFAULTS };
    let stored: ISettingRegistry.ISettings | null = null;
    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then(loaded => {
          stored = loaded;
          const update = () => Object.assign(settings, loaded.composite as Partial<ISettings>);
          update();
          loaded.changed.connect(update);
        })
        .catch(reason => console.warn('mlestar-jupyter: settings not loaded', reason));
    }

    /** The dialog's last values become the defaults of the next run. */
    const remember = async (values: Partial<ISettings>) => {
      Object.assign(settings, values);
      if (!stored) {
        return;
      }
      try {
        for (const [key, value] of Object.entries(values)) {
          await stored.set(key, value as string);
        }
      } catch (reason) {
        console.warn('mlestar-jupyter: could not remember the dialog values', reason);
      }
    };

    const panels = new Map<string, RunPanel>();

    /** The panel of a notebook, created and opened beside it when needed. */
    const panelFor = (notebook: NotebookPanel): RunPanel => {
      let panel = panels.get(notebook.id);
      if (!panel || panel.isDisposed) {
        panel = new RunPanel({
          notebook,
          api: MlestarAPI,
          interval: settings.pollInterval
        });
        panels.set(notebook.id, panel);
        const key = notebook.id;
        panel.disposed.connect(() => panels.delete(key));
      }
      if (!panel.isAttached) {
        app.shell.add(panel, 'main', { mode: 'split-right', ref: notebook.id });
      }
      return panel;
    };

    const showRun = (
      notebook: NotebookPanel,
      run: IDescribeRun,
      options: { timeLimit?: number; notice?: string } = {}
    ) => {
      const panel = panelFor(notebook);
      panel.setRun(run, options);
      app.shell.activateById(notebook.id);
    };

    /** Ask for the settings, save the notebook (saying so), start the run, show the panel. */
    const startRun = async (notebook: NotebookPanel, block?: string) => {
      await notebook.context.ready;
      const path = notebook.context.path;
      const raw = {
        taskDir: defaultTaskDir(path, notebook.model?.metadata ?? {}),
        backend: settings.defaultBackend,
        model: settings.defaultModel,
        timeBudget: settings.defaultTimeBudget,
        mode: settings.defaultMode,
        block
      };
      const body = await askRunSettings(raw, path, async dir => {
        const listing = await app.serviceManager.contents.get(dir === '.' ? '' : dir, {
          content: true
        });
        // a path to a task.json itself is a task folder too
        return listing.type === 'directory'
          ? (listing.content as { name: string; type: string }[])
          : [{ name: listing.name, type: listing.type }];
      });
      if (!body) {
        return;
      }
      await remember({
        defaultBackend: body.backend,
        defaultModel: body.model ?? (body.backend === 'offline' ? settings.defaultModel : ''),
        defaultTimeBudget: formatBudget(body.time_limit),
        defaultMode: body.mode
      });
      try {
        let notice: string | undefined;
        if (notebook.context.model.dirty) {
          await notebook.context.save();
          notice = `Saved ${notebook.title.label} before the run: the run reads the saved file.`;
          Notification.info(notice, { autoClose: 8000 });
        }
        const run = await MlestarAPI.startRun(body);
        showRun(notebook, run, { timeLimit: body.time_limit, notice: notice ?? '' });
      } catch (error) {
        await showErrorMessage(
          'MLE-STAR: the run did not start',
          error instanceof Error ? error.message : String(error)
        );
      }
    };

    app.commands.addCommand(CommandIDs.run, {
      label: 'MLE-STAR',
      caption: 'Run the MLE-STAR agent on this notebook (opens the run settings)',
      icon: mlestarIcon,
      isEnabled: () => tracker.currentWidget !== null,
      execute: async () => {
        const notebook = tracker.currentWidget;
        if (notebook) {
          await startRun(notebook);
        }
      }
    });

    app.commands.addCommand(CommandIDs.refineCell, {
      label: 'Refine this cell with MLE-STAR',
      caption: 'Run the MLE-STAR agent on the active cell only',
      icon: mlestarIcon,
      isEnabled: () => tracker.activeCell?.model.type === 'code',
      execute: async () => {
        const notebook = tracker.currentWidget;
        const model = notebook?.content.model;
        const active = notebook?.content.activeCellIndex ?? -1;
        if (!notebook || !model || active < 0) {
          return;
        }
        const cells = Array.from(model.cells).map(c => ({
          type: c.type,
          blockId: blockIdOf(c)
        }));
        const block = agentBlockIds(cells)[active];
        if (!block) {
          await showErrorMessage(
            'MLE-STAR: not a code cell',
            'Select a code cell to refine, then choose "Refine this cell with MLE-STAR" again.'
          );
          return;
        }
        await startRun(notebook, block);
      }
    });
    palette?.addItem({ command: CommandIDs.run, category: 'MLE-STAR' });
    palette?.addItem({ command: CommandIDs.refineCell, category: 'MLE-STAR' });
    palette?.addItem({ command: CommandIDs.openPanel, category: 'MLE-STAR' });
    registerTaskImport(app, palette, {
      icon: mlestarIcon,
      defaultBackend: () => settings.defaultBackend
    });

    app.commands.addCommand(CommandIDs.openPanel, {
      label: 'Show MLE-STAR run panel',
      icon: mlestarIcon,
      isEnabled: () => tracker.currentWidget !== null,
      execute: async () => {
        const notebook = tracker.currentWidget;
        if (!notebook) {
          return;
        }
        await notebook.context.ready;
        const runs = await MlestarAPI.listRuns(notebook.context.path);
        const panel = panelFor(notebook);
        const latest = latestRun(runs);
        if (latest) {
          panel.setRun(latest);
        }
      }
    });

    // Reopening a notebook shows its latest run.
    tracker.widgetAdded.connect((_, notebook) => {
      void notebook.context.ready.then(async () => {
        if (!settings.openPanelOnReopen) {
          return;
        }
        try {
          const runs = await MlestarAPI.listRuns(notebook.context.path);
          const latest = latestRun(runs);
          if (latest && !notebook.isDisposed) {
            showRun(notebook, latest);
          }
        } catch (error) {
          if (!(error instanceof MlestarAPIError && error.status === 404)) {
            console.warn('mlestar-jupyter: could not list runs', error);
          }
        }
      });
    });
  }
};

/** A budget in seconds as the dialog's field shows it: whole minutes bare (`30`), else `90s`. */
export function formatBudget(seconds: number): string {
  return seconds % 60 === 0 ? String(seconds / 60) : `${seconds}s`;
}

export default plugin;
