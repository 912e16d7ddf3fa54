"use strict";(self.rspackChunkmlestar_jupyter=self.rspackChunkmlestar_jupyter||[]).push([[929],{368(e,r,t){var o=t(72),a=t.n(o),n=t(206),s=t.n(n),i=t(659),p=t.n(i),l=t(56),c=t.n(l),d=t(540),u=t.n(d),f=t(113),m=t.n(f),v=t(142),g={};g.styleTagTransform=m(),g.setAttributes=c(),g.insert=p().bind(null,"head"),g.domAPI=s(),g.insertStyleElement=u(),a()(v.A,g),v.A&&v.A.locals&&v.A.locals},142(e,r,t){var o=t(601),a=t.n(o),n=t(314),s=(t.n(n))()(a());s.push([e.id,`.mlestar-Panel {
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

.mlestar-proposal[data-decision='pending'] {
  border-color: var(--jp-brand-color1);
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

.mlestar-badge-accept {
  background: var(--jp-success-color3);
}

.mlestar-badge-reject {
  background: var(--jp-warn-color3);
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

.mlestar-kernel-widgets {
  margin-top: 8px;
}

.mlestar-kernel-widgets .jp-OutputPrompt {
  display: none;
}
`,""]),t.d(r,{},{A:s})},314(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var t="",o=void 0!==r[5];return r[4]&&(t+="@supports (".concat(r[4],") {")),r[2]&&(t+="@media ".concat(r[2]," {")),o&&(t+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),t+=e(r),o&&(t+="}"),r[2]&&(t+="}"),r[4]&&(t+="}"),t}).join("")},r.i=function(e,t,o,a,n){"string"==typeof e&&(e=[[null,e,void 0]]);var s={};if(o)for(var i=0;i<this.length;i++){var p=this[i][0];null!=p&&(s[p]=!0)}for(var l=0;l<e.length;l++){var c=[].concat(e[l]);o&&s[c[0]]||(void 0!==n&&(void 0===c[5]||(c[1]="@layer".concat(c[5].length>0?" ".concat(c[5]):""," {").concat(c[1],"}")),c[5]=n),t&&(c[2]&&(c[1]="@media ".concat(c[2]," {").concat(c[1],"}")),c[2]=t),a&&(c[4]?(c[1]="@supports (".concat(c[4],") {").concat(c[1],"}"),c[4]=a):c[4]="".concat(a)),r.push(c))}},r}},601(e){e.exports=function(e){return e[1]}},72(e){var r=[];function t(e){for(var t=-1,o=0;o<r.length;o++)if(r[o].identifier===e){t=o;break}return t}function o(e,o){for(var a={},n=[],s=0;s<e.length;s++){var i=e[s],p=o.base?i[0]+o.base:i[0],l=a[p]||0,c="".concat(p," ").concat(l);a[p]=l+1;var d=t(c),u={css:i[1],media:i[2],sourceMap:i[3],supports:i[4],layer:i[5]};if(-1!==d)r[d].references++,r[d].updater(u);else{var f=function(e,r){var t=r.domAPI(r);return t.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&t.update(e=r):t.remove()}}(u,o);o.byIndex=s,r.splice(s,0,{identifier:c,updater:f,references:1})}n.push(c)}return n}e.exports=function(e,a){var n=o(e=e||[],a=a||{});return function(e){e=e||[];for(var s=0;s<n.length;s++){var i=t(n[s]);r[i].references--}for(var p=o(e,a),l=0;l<n.length;l++){var c=t(n[l]);0===r[c].references&&(r[c].updater(),r.splice(c,1))}n=p}}},659(e){var r={};e.exports=function(e,t){var o=function(e){if(void 0===r[e]){var t=document.querySelector(e);if(window.HTMLIFrameElement&&t instanceof window.HTMLIFrameElement)try{t=t.contentDocument.head}catch(e){t=null}r[e]=t}return r[e]}(e);if(!o)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");o.appendChild(t)}},540(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},56(e,r,t){e.exports=function(e){var r=t.nc;r&&e.setAttribute("nonce",r)}},206(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(t){var o,a,n;o="",t.supports&&(o+="@supports (".concat(t.supports,") {")),t.media&&(o+="@media ".concat(t.media," {")),(a=void 0!==t.layer)&&(o+="@layer".concat(t.layer.length>0?" ".concat(t.layer):""," {")),o+=t.css,a&&(o+="}"),t.media&&(o+="}"),t.supports&&(o+="}"),(n=t.sourceMap)&&"u">typeof btoa&&(o+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(n))))," */")),e.styleTagTransform(o,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},113(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}}}]);