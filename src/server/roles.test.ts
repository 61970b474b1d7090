import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";
import { parseRoles, rolesOnCloudflare } from "./roles.js";

describe("ROLES", () => {
  it("parseRoles: any non-empty subset, in any order, spaces allowed, in start order", () => {
    expect(parseRoles("edge, api")).toEqual(["api", "edge"]);
    expect(parseRoles("upload")).toEqual(["upload"]);
    expect(parseRoles("edge,upload,api,edge")).toEqual(["api", "upload", "edge"]);
  });

  it("parseRoles: an unknown role or none at all is named", () => {
    expect(parseRoles("api,cdn")).toBe('unknown role "cdn": the roles are api, upload and edge');
    expect(parseRoles(" , ")).toBe("must name at least one of api, upload, edge");
  });

  it("rolesOnCloudflare: the API alone is fine; any other role is named, each of them", () => {
    expect(rolesOnCloudflare(["api"])).toBeUndefined();
    expect(rolesOnCloudflare(["api", "upload", "edge"])).toBe(
      "with PLATFORM=cloudflare a process runs only the api role (Cloudflare receives the uploads and serves the sites), not upload, edge",
    );
  });

  it("loadConfig: every role by default", () => {
    expect(loadConfig({}).roles).toEqual(["api", "upload", "edge"]);
  });

  it("loadConfig: a malformed ROLES is a ConfigError naming ROLES", () => {
    expect(() => loadConfig({ ROLES: "api,cdn" })).toThrow(ConfigError);
    expect(() => loadConfig({ ROLES: "api,cdn" })).toThrow(/^ROLES: unknown role "cdn"/);
  });

  it("loadConfig: an API without the upload role needs UPLOAD_PUBLIC_URL, without the edge PUBLIC_EDGE_PORT", () => {
    expect(() => loadConfig({ ROLES: "api", PUBLIC_EDGE_PORT: "443" })).toThrow(
      /^UPLOAD_PUBLIC_URL: required/,
    );
    expect(() => loadConfig({ ROLES: "api", UPLOAD_PUBLIC_URL: "https://upload.example.com" })).toThrow(
      /^PUBLIC_EDGE_PORT: required/,
    );
    const config = loadConfig({
      ROLES: "api",
      UPLOAD_PUBLIC_URL: "https://upload.example.com",
      PUBLIC_EDGE_PORT: "443",
    });
    expect(config.roles).toEqual(["api"]);
    expect(loadConfig({ ROLES: "edge" }).roles).toEqual(["edge"]);
  });
});
