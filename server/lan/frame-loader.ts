// The script of the widget frame documents (widget-frame.ts): it takes the widget's content from the
// parent window once and writes it in. Its own module because the static frame's policy (csp.ts)
// pins this exact text by hash.
export const FRAME_LOADER = `addEventListener('message', function take(event) {
  var data = event.data;
  if (event.source !== parent || !data || data.type !== 'towpath:content' || typeof data.html !== 'string') return;
  removeEventListener('message', take);
  document.open();
  document.write(data.html);
  document.close();
});`;
