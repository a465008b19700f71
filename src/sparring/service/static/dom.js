// Small DOM helpers shared by the page's feature modules (text is only ever set with
// textContent, never as HTML).

export function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}
