/**
 * JupyterLab plugin of MLE-STAR: the "MLE-STAR" notebook toolbar button (declared in the
 * settings schema under `jupyter.lab.toolbars`), the run dialog, and the run panel opened
 * beside the notebook.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { showErrorMessage } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { LabIcon } from '@jupyterlab/ui-components';

import { MlestarAPI, MlestarAPIError } from './api';
import { askRunSettings } from './dialog';
import { defaultTaskDir } from './form';
import { IDescribeRun, latestRun } from './models';
import { RunPanel } from './panel';
import mlestarSvg from '../style/icons/mlestar.svg';

/** Command ids. */
export namespace CommandIDs {
  /** Open the run dialog for the current notebook and start a run. */
  export const run = 'mlestar-jupyter:run';
  /** Open the panel of the current notebook's latest run. */
  export const openPanel = 'mlestar-jupyter:open-panel';
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
  kernelWidgets: boolean;
}

const DEFAULTS: ISettings = {
  pollInterval: 1500,
  defaultBackend: 'offline',
  defaultModel: '',
  defaultTimeBudget: '30',
  defaultMode: 'autopilot',
  openPanelOnReopen: true,
  kernelWidgets: true
};

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Run the MLE-STAR agent on a notebook and review its cell proposals.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    settingRegistry: ISettingRegistry | null
  ) => {
    const settings: ISettings = { ...DEFAULTS };
    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then(loaded => {
          const update = () => Object.assign(settings, loaded.composite as Partial<ISettings>);
          update();
          loaded.changed.connect(update);
        })
        .catch(reason => console.warn('mlestar-jupyter: settings not loaded', reason));
    }

    const panels = new Map<string, RunPanel>();

    /** The panel of a notebook, created and opened beside it when needed. */
    const panelFor = (notebook: NotebookPanel): RunPanel => {
      let panel = panels.get(notebook.id);
      if (!panel || panel.isDisposed) {
        panel = new RunPanel({
          notebook,
          api: MlestarAPI,
          interval: settings.pollInterval,
          kernelWidgets: settings.kernelWidgets
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

    const showRun = (notebook: NotebookPanel, run: IDescribeRun) => {
      const panel = panelFor(notebook);
      panel.setRun(run);
      app.shell.activateById(notebook.id);
    };

    app.commands.addCommand(CommandIDs.run, {
      label: 'MLE-STAR',
      caption: 'Run the MLE-STAR agent on this notebook',
      icon: mlestarIcon,
      isEnabled: () => tracker.currentWidget !== null,
      execute: async () => {
        const notebook = tracker.currentWidget;
        if (!notebook) {
          return;
        }
        await notebook.context.ready;
        const path = notebook.context.path;
        const body = await askRunSettings(
          {
            taskDir: defaultTaskDir(path, notebook.model?.metadata ?? {}),
            backend: settings.defaultBackend,
            model: settings.defaultModel,
            timeBudget: settings.defaultTimeBudget,
            mode: settings.defaultMode
          },
          path
        );
        if (!body) {
          return;
        }
        try {
          if (notebook.context.model.dirty) {
            await notebook.context.save();
          }
          const run = await MlestarAPI.startRun(body);
          showRun(notebook, run);
        } catch (error) {
          await showErrorMessage(
            'MLE-STAR: the run did not start',
            error instanceof Error ? error.message : String(error)
          );
        }
      }
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

export default plugin;
