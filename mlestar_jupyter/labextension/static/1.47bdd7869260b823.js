"use strict";(self.rspackChunkmlestar_jupyter=self.rspackChunkmlestar_jupyter||[]).push([[1],{224(r,e,o){var a=o(72),t=o.n(a),l=o(206),s=o.n(l),n=o(659),p=o.n(n),i=o(56),d=o.n(i),c=o(540),m=o.n(c),u=o(113),f=o.n(u),g=o(142),v={};v.styleTagTransform=f(),v.setAttributes=d(),v.insert=p().bind(null,"head"),v.domAPI=s(),v.insertStyleElement=m(),t()(g.A,v),g.A&&g.A.locals&&g.A.locals;var x=o(985),b={};b.styleTagTransform=f(),b.setAttributes=d(),b.insert=p().bind(null,"head"),b.domAPI=s(),b.insertStyleElement=m(),t()(x.A,b),x.A&&x.A.locals&&x.A.locals},142(r,e,o){var a=o(601),t=o.n(a),l=o(314),s=(o.n(l))()(t());s.push([r.id,`.mlestar-Panel {
  display: flex;
  flex-direction: column;
  overflow-y: auto;
  padding: 8px;
  background: var(--jp-layout-color1);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
}

.mlestar-status {
  font-weight: 600;
  padding: 4px 0;
}

.mlestar-Panel-controls {
  display: flex;
  gap: 6px;
  margin: 4px 0;
}

.mlestar-message:not(:empty) {
  color: var(--jp-error-color1);
  margin: 4px 0;
}

.mlestar-log {
  margin: 4px 0;
  padding-left: 16px;
  color: var(--jp-ui-font-color2);
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
}

.mlestar-proposals {
  display: flex;
  flex-direction: column;
  gap: 8px;
  margin: 8px 0;
}

.mlestar-proposal {
  border: var(--jp-border-width) solid var(--jp-border-color2);
  border-radius: 4px;
  padding: 6px;
}

.mlestar-proposal[data-state='pending'] {
  border-color: var(--jp-brand-color1);
}

.mlestar-proposal[data-state='edited'] {
  border-color: var(--jp-warn-color1);
}

.mlestar-proposal-title {
  font-weight: 600;
}

.mlestar-proposal-plan {
  color: var(--jp-ui-font-color2);
  margin: 2px 0 6px;
  white-space: pre-wrap;
}

.mlestar-Diff {
  border: var(--jp-border-width) solid var(--jp-border-color3);
  max-height: 360px;
  overflow: auto;
}

.mlestar-proposal-actions {
  display: flex;
  gap: 6px;
  margin-top: 6px;
}

.mlestar-badge {
  font-weight: normal;
  border-radius: 3px;
  padding: 0 4px;
}

.mlestar-badge-accepted {
  background: var(--jp-success-color3);
}

.mlestar-badge-rejected,
.mlestar-badge-edited {
  background: var(--jp-warn-color3);
}

.mlestar-badge-pending {
  background: var(--jp-brand-color3);
}

.mlestar-RunForm {
  display: flex;
  flex-direction: column;
  gap: 8px;
  min-width: 360px;
}

.mlestar-RunForm-row {
  display: flex;
  flex-direction: column;
  gap: 2px;
}

.mlestar-Panel-header {
  flex: 0 0 auto;
}

.mlestar-Panel-body {
  flex: 0 0 auto;
}

.mlestar-progress {
  position: relative;
  height: 18px;
  margin: 4px 0;
  border-radius: 3px;
  background: var(--jp-layout-color3);
  overflow: hidden;
}

.mlestar-progress-bar {
  height: 100%;
  width: 0;
  background: var(--jp-brand-color1);
  transition: width 0.8s linear;
}

.mlestar-progress[data-state='unknown'] .mlestar-progress-bar {
  width: 30%;
  opacity: 0.5;
  animation: mlestar-indeterminate 1.5s ease-in-out infinite;
}

.mlestar-progress[data-state='ended'] .mlestar-progress-bar {
  background: var(--jp-success-color1);
}

@keyframes mlestar-indeterminate {
  from {
    transform: translateX(-100%);
  }

  to {
    transform: translateX(340%);
  }
}

.mlestar-progress-text {
  position: absolute;
  inset: 0;
  line-height: 18px;
  padding: 0 6px;
  font-size: var(--jp-ui-font-size0);
  color: var(--jp-ui-font-color0);
}

.mlestar-notice:not(:empty) {
  margin: 4px 0;
  padding: 4px 6px;
  border-left: 3px solid var(--jp-info-color1);
  background: var(--jp-info-color3);
}

.mlestar-plan:not(:empty) {
  margin: 4px 0;
  padding: 4px 6px;
  border: var(--jp-border-width) solid var(--jp-border-color2);
  border-radius: 3px;
}

.mlestar-plan-title {
  font-weight: 600;
}

.mlestar-plan-text {
  white-space: pre-wrap;
  max-height: 6em;
  overflow: auto;
}

.mlestar-nav {
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
  margin: 6px 0 2px;
}

.mlestar-nav-link {
  font-size: var(--jp-ui-font-size0);
}

.mlestar-section {
  margin: 10px 0;
  min-height: 60px;
}

.mlestar-section h3 {
  margin: 0 0 4px;
  font-size: var(--jp-ui-font-size2);
  border-bottom: var(--jp-border-width) solid var(--jp-border-color2);
}

.mlestar-section-body {
  min-height: 56px;
}

.mlestar-chart-empty {
  color: var(--jp-ui-font-color2);
  font-style: italic;
  padding: 8px 0;
}

.mlestar-chart-caption {
  margin: 4px 0;
}

.mlestar-axis {
  stroke: var(--jp-border-color1);
}

.mlestar-tick {
  fill: var(--jp-ui-font-color2);
  font-size: 11px;
}

.mlestar-dot {
  fill: var(--jp-brand-color2);
}

.mlestar-best-line {
  fill: none;
  stroke: var(--jp-success-color1);
  stroke-width: 2;
}

.mlestar-bar-pos {
  fill: var(--jp-success-color1);
}

.mlestar-bar-neg {
  fill: var(--jp-error-color1);
}

.mlestar-ensemble {
  border-collapse: collapse;
  width: 100%;
}

.mlestar-ensemble th,
.mlestar-ensemble td {
  text-align: left;
  padding: 2px 6px;
  border-bottom: var(--jp-border-width) solid var(--jp-border-color3);
}

.mlestar-chosen {
  font-weight: 600;
}

.mlestar-tree ul {
  margin: 0;
  padding-left: 16px;
}

.mlestar-tree > ul {
  padding-left: 0;
  list-style: none;
}

.mlestar-proposals-bar {
  display: flex;
  align-items: center;
  gap: 8px;
}

.mlestar-proposals-note {
  color: var(--jp-ui-font-color2);
}

.mlestar-proposal-score {
  margin: 2px 0;
}

.mlestar-proposal-source,
.mlestar-note {
  color: var(--jp-ui-font-color2);
  font-size: var(--jp-ui-font-size0);
  margin: 2px 0;
}

.mlestar-proposal ul.mlestar-proposal-plan {
  padding-left: 16px;
}

.mlestar-compare {
  color: var(--jp-warn-color0);
}

.mlestar-alternatives {
  margin-top: 6px;
}

.mlestar-alternative {
  border-top: var(--jp-border-width) dashed var(--jp-border-color2);
  padding: 4px 0;
}

.jp-Notebook .jp-Cell.mlestar-highlight {
  outline: 3px solid var(--jp-success-color1);
  outline-offset: -2px;
  background: var(--jp-success-color3);
  transition: background 0.5s;
}

.mlestar-RunForm-budget {
  display: flex;
  align-items: center;
  gap: 6px;
}

.mlestar-RunForm-unit {
  color: var(--jp-ui-font-color2);
}

.mlestar-RunForm-scope {
  font-weight: 600;
}

.mlestar-RunForm fieldset {
  border: none;
  padding: 0;
  margin: 0;
  display: flex;
  flex-direction: column;
  gap: 4px;
}

.mlestar-choice {
  display: flex;
  align-items: flex-start;
  gap: 8px;
  padding: 6px 8px;
  border: 2px solid var(--jp-border-color2);
  border-radius: 4px;
  cursor: pointer;
}

.mlestar-choice input[type='radio'] {
  appearance: auto;
  accent-color: var(--jp-brand-color1);
  margin-top: 2px;
}

.mlestar-choice[data-checked='true'] {
  border-color: var(--jp-brand-color1);
  background: var(--jp-brand-color4, var(--jp-layout-color2));
}

.mlestar-choice-text {
  display: flex;
  flex-direction: column;
}

.mlestar-choice small {
  color: var(--jp-ui-font-color2);
}

.mlestar-Panel [hidden] {
  display: none !important;
}

.mlestar-RunForm-notebookTask summary {
  cursor: pointer;
  color: var(--jp-ui-font-color2);
  margin: 4px 0;
}

.mlestar-RunForm-taskNote {
  color: var(--jp-ui-font-color2);
  font-size: var(--jp-ui-font-size0);
  margin-top: 4px;
}
`,""]),o.d(e,{},{A:s})},985(r,e,o){var a=o(601),t=o.n(a),l=o(314),s=(o.n(l))()(t());s.push([r.id,`/* The "New task from competition page" dialog (labextension/src/taskImport.ts). */

.mlestar-TaskImport {
  display: flex;
  flex-direction: column;
  gap: 6px;
  width: min(640px, 80vw);
  max-height: 70vh;
  overflow: auto;
}

.mlestar-TaskImport-row {
  display: grid;
  grid-template-columns: 11em 1fr;
  align-items: start;
  column-gap: 8px;
  row-gap: 2px;
}

.mlestar-TaskImport-row > label {
  font-weight: 600;
  padding-top: 4px;
}

.mlestar-TaskImport-row > .mlestar-TaskImport-problems {
  grid-column: 2;
}

.mlestar-TaskImport textarea {
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  resize: vertical;
  min-height: 3em;
}

.mlestar-TaskImport-drop {
  padding: 6px 8px;
  border: 1px dashed var(--jp-border-color1);
  border-radius: 3px;
  color: var(--jp-ui-font-color2);
  font-size: var(--jp-ui-font-size0);
}

.mlestar-TaskImport-drop.mlestar-mod-dragover {
  border-color: var(--jp-brand-color1);
  background: var(--jp-brand-color3);
}

.mlestar-TaskImport-check {
  font-weight: normal;
}

.mlestar-TaskImport-extract {
  align-self: flex-start;
  margin-left: calc(11em + 8px);
}

.mlestar-TaskImport-note:not(:empty) {
  padding: 4px 6px;
  border-left: 3px solid var(--jp-info-color1);
  background: var(--jp-info-color3);
}

.mlestar-TaskImport-problems {
  margin: 2px 0 0;
  padding-left: 18px;
  color: var(--jp-error-color1);
  font-size: var(--jp-ui-font-size1);
}

.mlestar-TaskImport-problems:empty {
  display: none;
}

.mlestar-TaskImport-row.mlestar-mod-problem input,
.mlestar-TaskImport-row.mlestar-mod-problem textarea,
.mlestar-TaskImport-fields tr.mlestar-mod-problem input {
  border-color: var(--jp-error-color1);
}

.mlestar-TaskImport-fields {
  border-collapse: collapse;
  width: 100%;
}

.mlestar-TaskImport-fields th {
  text-align: left;
  vertical-align: top;
  white-space: nowrap;
  padding: 3px 8px 3px 0;
}

.mlestar-TaskImport-fields td {
  padding: 3px 0;
  vertical-align: top;
}

.mlestar-TaskImport-fields tr + tr {
  border-top: var(--jp-border-width) solid var(--jp-border-color2);
}

.mlestar-TaskImport-fields pre {
  margin: 0;
  max-height: 6em;
  overflow: auto;
  font-size: var(--jp-code-font-size);
}

.mlestar-TaskImport-guessed {
  display: inline-block;
  margin-left: 6px;
  padding: 0 5px;
  border-radius: 8px;
  background: var(--jp-warn-color3);
  color: var(--jp-warn-color0);
  font-size: var(--jp-ui-font-size0);
  cursor: help;
}

.mlestar-TaskImport-why {
  display: block;
  color: var(--jp-ui-font-color2);
}
`,""]),o.d(e,{},{A:s})},314(r){r.exports=function(r){var e=[];return e.toString=function(){return this.map(function(e){var o="",a=void 0!==e[5];return e[4]&&(o+="@supports (".concat(e[4],") {")),e[2]&&(o+="@media ".concat(e[2]," {")),a&&(o+="@layer".concat(e[5].length>0?" ".concat(e[5]):""," {")),o+=r(e),a&&(o+="}"),e[2]&&(o+="}"),e[4]&&(o+="}"),o}).join("")},e.i=function(r,o,a,t,l){"string"==typeof r&&(r=[[null,r,void 0]]);var s={};if(a)for(var n=0;n<this.length;n++){var p=this[n][0];null!=p&&(s[p]=!0)}for(var i=0;i<r.length;i++){var d=[].concat(r[i]);a&&s[d[0]]||(void 0!==l&&(void 0===d[5]||(d[1]="@layer".concat(d[5].length>0?" ".concat(d[5]):""," {").concat(d[1],"}")),d[5]=l),o&&(d[2]&&(d[1]="@media ".concat(d[2]," {").concat(d[1],"}")),d[2]=o),t&&(d[4]?(d[1]="@supports (".concat(d[4],") {").concat(d[1],"}"),d[4]=t):d[4]="".concat(t)),e.push(d))}},e}},601(r){r.exports=function(r){return r[1]}},72(r){var e=[];function o(r){for(var o=-1,a=0;a<e.length;a++)if(e[a].identifier===r){o=a;break}return o}function a(r,a){for(var t={},l=[],s=0;s<r.length;s++){var n=r[s],p=a.base?n[0]+a.base:n[0],i=t[p]||0,d="".concat(p," ").concat(i);t[p]=i+1;var c=o(d),m={css:n[1],media:n[2],sourceMap:n[3],supports:n[4],layer:n[5]};if(-1!==c)e[c].references++,e[c].updater(m);else{var u=function(r,e){var o=e.domAPI(e);return o.update(r),function(e){e?(e.css!==r.css||e.media!==r.media||e.sourceMap!==r.sourceMap||e.supports!==r.supports||e.layer!==r.layer)&&o.update(r=e):o.remove()}}(m,a);a.byIndex=s,e.splice(s,0,{identifier:d,updater:u,references:1})}l.push(d)}return l}r.exports=function(r,t){var l=a(r=r||[],t=t||{});return function(r){r=r||[];for(var s=0;s<l.length;s++){var n=o(l[s]);e[n].references--}for(var p=a(r,t),i=0;i<l.length;i++){var d=o(l[i]);0===e[d].references&&(e[d].updater(),e.splice(d,1))}l=p}}},659(r){var e={};r.exports=function(r,o){var a=function(r){if(void 0===e[r]){var o=document.querySelector(r);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(r){o=null}e[r]=o}return e[r]}(r);if(!a)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");a.appendChild(o)}},540(r){r.exports=function(r){var e=document.createElement("style");return r.setAttributes(e,r.attributes),r.insert(e,r.options),e}},56(r,e,o){r.exports=function(r){var e=o.nc;e&&r.setAttribute("nonce",e)}},206(r){r.exports=function(r){if("u"<typeof document)return{update:function(){},remove:function(){}};var e=r.insertStyleElement(r);return{update:function(o){var a,t,l;a="",o.supports&&(a+="@supports (".concat(o.supports,") {")),o.media&&(a+="@media ".concat(o.media," {")),(t=void 0!==o.layer)&&(a+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),a+=o.css,t&&(a+="}"),o.media&&(a+="}"),o.supports&&(a+="}"),(l=o.sourceMap)&&"u">typeof btoa&&(a+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(l))))," */")),r.styleTagTransform(a,e,r.options)},remove:function(){var r;null===(r=e).parentNode||r.parentNode.removeChild(r)}}}},113(r){r.exports=function(r,e){if(e.styleSheet)e.styleSheet.cssText=r;else{for(;e.firstChild;)e.removeChild(e.firstChild);e.appendChild(document.createTextNode(r))}}}}]);