/**
 * A read-only unified diff of a cell (`old_source` → `new_source`) drawn with `@codemirror/merge`.
 */
import { python } from '@codemirror/lang-python';
import { unifiedMergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { jupyterTheme } from '@jupyterlab/codemirror';
import { Widget } from '@lumino/widgets';

/** A widget showing the proposed source with the removed lines of the old one inline. */
export class CellDiffView extends Widget {
  constructor(oldSource: string, newSource: string) {
    super();
    this.addClass('mlestar-Diff');
    this._view = new EditorView({
      parent: this.node,
      state: EditorState.create({
        doc: newSource,
        extensions: [
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.lineWrapping,
          python(),
          jupyterTheme,
          unifiedMergeView({
            original: oldSource,
            mergeControls: false,
            gutter: true,
            collapseUnchanged: { margin: 2, minSize: 6 }
          })
        ]
      })
    });
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._view.destroy();
    super.dispose();
  }

  private _view: EditorView;
}
