// Validates deploy/k8s/*.yaml offline: every document against its JSON schema (Kubernetes API
// from kubernetes-models, Strimzi CRDs 0.49/1.0 from @kubernetes-models/strimzi-kafka-operator),
// then Courier's own rules: probes and resources on every container, a PodDisruptionBudget and a
// Service for every Deployment, envFrom ConfigMaps that exist, and kustomization entries that exist;
// a leader-elected Deployment (annotation courier.dev/leader-elected) has a standby, rolls without
// ever lacking a ready replica, probes readiness as a replica (a standby counts), and its PDB keeps
// one replica.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, parse } from "yaml";

const deploy = join(dirname(fileURLToPath(import.meta.url)), "..");
const k8s = join(deploy, "k8s");
const problems = [];
const resources = [];

function modulePath(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  if (group === "") return `kubernetes-models/${version}/${kind}`;
  if (group.endsWith(".strimzi.io")) {
    return `@kubernetes-models/strimzi-kafka-operator/${group}/${version}/${kind}`;
  }
  return `kubernetes-models/${group}/${version}/${kind}`;
}

for (const file of readdirSync(k8s).filter((f) => f.endsWith(".yaml")).sort()) {
  for (const doc of parseAllDocuments(readFileSync(join(k8s, file), "utf8"))) {
    if (doc.errors.length) {
      problems.push(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
      continue;
    }
    const obj = doc.toJS();
    if (obj == null) continue;
    const where = `${file}: ${obj.kind}/${obj.metadata?.name}`;
    let Model;
    try {
      const mod = await import(modulePath(obj.apiVersion, obj.kind));
      Model = mod[obj.kind];
    } catch (e) {
      problems.push(`${where}: no schema for ${obj.apiVersion} ${obj.kind}`);
      continue;
    }
    try {
      new Model(obj).validate();
    } catch (e) {
      problems.push(`${where}: ${e.message}`);
      continue;
    }
    resources.push({ file, where, obj });
  }
}

const byKind = (kind) => resources.filter((r) => r.obj.kind === kind);
const selects = (selector, labels) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const configMaps = new Set(byKind("ConfigMap").map((r) => r.obj.metadata.name));

for (const { where, obj } of byKind("Deployment")) {
  const labels = obj.spec.template.metadata.labels;
  for (const c of obj.spec.template.spec.containers) {
    for (const probe of ["livenessProbe", "readinessProbe"]) {
      if (!c[probe]?.httpGet?.path) problems.push(`${where}: container ${c.name} has no ${probe} on an HTTP path`);
    }
    if (!c.resources?.requests?.memory || !c.resources?.limits?.memory) {
      problems.push(`${where}: container ${c.name} needs memory requests and limits`);
    }
    const ports = new Set((c.ports ?? []).map((p) => p.name));
    for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      const port = c[probe]?.httpGet?.port;
      if (typeof port === "string" && !ports.has(port)) problems.push(`${where}: ${probe} names port ${port}, which ${c.name} does not declare`);
    }
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef && !configMaps.has(from.configMapRef.name)) {
        problems.push(`${where}: envFrom ConfigMap ${from.configMapRef.name} is not defined`);
      }
    }
  }
  if (!byKind("PodDisruptionBudget").some((r) => selects(r.obj.spec.selector.matchLabels, labels))) {
    problems.push(`${where}: no PodDisruptionBudget selects its pods`);
  }
  if (!byKind("Service").some((r) => selects(r.obj.spec.selector, labels))) {
    problems.push(`${where}: no Service selects its pods (Prometheus scrapes through it)`);
  }
}
for (const { where, obj } of byKind("Deployment")) {
  if (obj.metadata.annotations?.["courier.dev/leader-elected"] !== "true") continue;
  const labels = obj.spec.template.metadata.labels;
  if (!(obj.spec.replicas >= 2)) problems.push(`${where}: leader-elected, needs 2 or more replicas for a standby`);
  const strategy = obj.spec.strategy ?? {};
  if (strategy.type !== "RollingUpdate" || String(strategy.rollingUpdate?.maxUnavailable) !== "0") {
    problems.push(`${where}: leader-elected, needs a RollingUpdate with maxUnavailable 0 (a standby ready before a replica goes)`);
  }
  for (const c of obj.spec.template.spec.containers) {
    if (c.readinessProbe?.httpGet?.path !== "/health/replica") {
      problems.push(`${where}: leader-elected, container ${c.name} must probe readiness on /health/replica (a standby never ready on /health/ready blocks rollouts and drains)`);
    }
    if (c.livenessProbe?.httpGet?.path !== "/health/live") {
      problems.push(`${where}: leader-elected, container ${c.name} must probe liveness on /health/live (a standby is live)`);
    }
  }
  const pdb = byKind("PodDisruptionBudget").find((r) => selects(r.obj.spec.selector.matchLabels, labels));
  if (pdb && !(pdb.obj.spec.minAvailable >= 1)) {
    problems.push(`${where}: leader-elected, its PodDisruptionBudget needs minAvailable 1 or more`);
  }
}
for (const { where, obj } of byKind("KafkaTopic")) {
  if (!obj.metadata.labels?.["strimzi.io/cluster"]) problems.push(`${where}: no strimzi.io/cluster label`);
}

const kustomization = parse(readFileSync(join(deploy, "kustomization.yaml"), "utf8"));
const listed = [
  ...(kustomization.resources ?? []),
  ...(kustomization.configMapGenerator ?? []).flatMap((g) => g.files ?? []),
];
for (const path of listed) {
  if (!existsSync(join(deploy, path))) problems.push(`kustomization.yaml: ${path} does not exist`);
}
for (const file of readdirSync(k8s).filter((f) => f.endsWith(".yaml"))) {
  if (!kustomization.resources.includes(`k8s/${file}`)) problems.push(`kustomization.yaml does not list k8s/${file}`);
}

for (const r of resources) console.log(`ok  ${r.where}`);
if (problems.length) {
  for (const p of problems) console.error(`INVALID  ${p}`);
  process.exit(1);
}
console.log(`${resources.length} resources valid (kubernetes-models 5.1.0, @kubernetes-models/strimzi-kafka-operator 1.0.1)`);
