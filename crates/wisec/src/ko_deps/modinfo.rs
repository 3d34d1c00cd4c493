//! The `.modinfo` section: NUL-separated `key=value` strings written by
//! `MODULE_LICENSE`, `MODULE_PARM_DESC`, `module_param` (`parmtype`),
//! `MODULE_DEVICE_TABLE` (`alias`, filled in by modpost) and modpost itself
//! (`depends`, `vermagic`, `name`, `intree`, `retpoline`, `srcversion`).
//! This is what `modinfo` prints.

use serde::Serialize;

/// Every `key=value` entry, in section order.
#[derive(Debug, Clone, Default)]
pub struct ModInfo {
    entries: Vec<(String, String)>,
}

/// A module parameter: `parmtype=NAME:TYPE` and `parm=NAME:DESCRIPTION`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Param {
    /// Its name (`modprobe MODULE NAME=VALUE`).
    pub name: String,
    /// Its type (`int`, `uint`, `bool`, `charp`, `string`, `array of int`…),
    /// when declared.
    #[serde(rename = "type")]
    pub ty: Option<String>,
    /// Its description, when the module gives one.
    pub description: Option<String>,
}

impl ModInfo {
    /// Parses the section's bytes; runs of NULs (alignment padding) and
    /// entries without `=` are skipped.
    pub fn parse(data: &[u8]) -> ModInfo {
        let entries = data
            .split(|&b| b == 0)
            .filter(|s| !s.is_empty())
            .filter_map(|s| {
                let s = String::from_utf8_lossy(s);
                let (k, v) = s.split_once('=')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect();
        ModInfo { entries }
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `key`, in order.
    pub fn all(&self, key: &str) -> Vec<String> {
        self.entries
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Every entry.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }

    /// The modules this one needs loaded first (`depends=`, written by
    /// modpost from the providers of its undefined symbols).
    pub fn depends(&self) -> Vec<String> {
        self.get("depends")
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The kernel release the module was built for: the first word of
    /// `vermagic`.
    pub fn release(&self) -> Option<&str> {
        self.get("vermagic")?.split_whitespace().next()
    }

    /// The parameters, in the order they first appear.
    pub fn params(&self) -> Vec<Param> {
        let mut out: Vec<Param> = Vec::new();
        for (k, v) in &self.entries {
            let is_type = match k.as_str() {
                "parmtype" => true,
                "parm" => false,
                _ => continue,
            };
            let (name, rest) = match v.split_once(':') {
                Some((n, r)) => (n.to_string(), r.to_string()),
                None => (v.clone(), String::new()),
            };
            let i = match out.iter().position(|p| p.name == name) {
                Some(i) => i,
                None => {
                    out.push(Param {
                        name,
                        ty: None,
                        description: None,
                    });
                    out.len() - 1
                }
            };
            if is_type {
                out[i].ty = Some(rest);
            } else {
                out[i].description = Some(rest);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTION: &[u8] = b"parm=qos:Enable QOS support (default on)\0parmtype=qos:int\0\
parmtype=fwpostfix:charp\0\0\0license=GPL\0alias=pci:v000014E4d00004315sv*sd*bc*sc*i*\0\
alias=ssb:v4243id0812rev05*\0depends=mmc_core,cfg80211,ssb\0junk\0\
vermagic=6.1.0-56-amd64 SMP preempt mod_unload modversions \0parm=nodesc_only:\0";

    #[test]
    fn entries_params_and_depends() {
        let m = ModInfo::parse(SECTION);
        assert_eq!(m.get("license"), Some("GPL"));
        assert_eq!(m.all("alias").len(), 2);
        assert_eq!(m.depends(), ["mmc_core", "cfg80211", "ssb"]);
        assert_eq!(m.release(), Some("6.1.0-56-amd64"));
        let p = m.params();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].name, "qos");
        assert_eq!(p[0].ty.as_deref(), Some("int"));
        assert_eq!(
            p[0].description.as_deref(),
            Some("Enable QOS support (default on)")
        );
        assert_eq!(p[1].name, "fwpostfix");
        assert_eq!(p[1].description, None);
        assert_eq!(p[2].ty, None);
        assert!(m.get("junk").is_none());
    }

    #[test]
    fn empty_depends_is_none() {
        let m = ModInfo::parse(b"depends=\0");
        assert!(m.depends().is_empty());
    }
}
