/** The page's server API. Failures throw an Error whose message the page can show as is. */

export async function getJson(path, as, more = "") {
  const response = await fetch(`${path}?as=${encodeURIComponent(as)}${more}`, { cache: "no-store" });
  return answer(response);
}

export async function postJson(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return answer(response);
}

async function answer(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    throw new Error(`The sandbox server answered HTTP ${response.status}.`);
  }
  if (!response.ok || body?.ok === false) throw new Error(body?.message ?? `HTTP ${response.status}`);
  return body;
}
