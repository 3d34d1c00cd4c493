//! Every experiment's report names the parameters fitted to a seed's
//! results that its numbers depend on, or says there are none: in
//! results.json (`fitted`: a list, empty for none) and in report.md (a
//! "Fitted parameters" section naming each with the figure it was fitted
//! to). The simulated experiments run in their reduced form; the live-only
//! ones are checked for a declaration.

use wisec_lab::cost::Calibration;
use wisec_lab::experiment::{self, RunOptions, EXPERIMENTS};
use wisec_lab::output::{self, RunSettings, Status};
use wisec_lab::progress::ProgressMode;
use wisec_lab::scenario::CaptureMode;

#[test]
fn every_report_names_its_fitted_parameters_or_none() {
    let cal = Calibration::nominal();
    for info in EXPERIMENTS {
        let name = info.name;
        if experiment::live_only(name) {
            let opts = RunOptions {
                live: true,
                quick: true,
                ..RunOptions::default()
            };
            if let Ok(e) = experiment::create(name, &opts) {
                assert!(
                    e.fitted().is_some(),
                    "{name}: fitted parameters not declared"
                );
            }
            continue;
        }
        let opts = RunOptions {
            seed: 1,
            quick: true,
            trials: Some(1),
            ..RunOptions::default()
        };
        let exp = experiment::create(name, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let declared = exp
            .fitted()
            .unwrap_or_else(|| panic!("{name}: fitted parameters not declared"));
        let dir = tempfile::tempdir().unwrap();
        let settings = RunSettings {
            out: Some(dir.path().to_path_buf()),
            calibration: &cal,
            capture: CaptureMode::None,
            plots: false,
            scenario_toml: Some(format!("experiment = \"{name}\"\n")),
            scenario_name: name.into(),
            interrupt: None,
            progress: ProgressMode::Quiet,
        };
        let o = output::run(exp.as_ref(), &settings).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(o.status, Status::Complete, "{name}: {:?}", o.error);
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("results.json")).unwrap(),
        )
        .unwrap();
        let fitted = json["fitted"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: results.json has no fitted list"));
        assert_eq!(fitted.len(), declared.len(), "{name}");
        let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
        assert!(md.contains("## Fitted parameters"), "{name}");
        assert!(!md.contains("Not declared"), "{name}");
        if declared.is_empty() {
            assert!(
                md.contains("None: no number of this report depends"),
                "{name}"
            );
        }
        for (f, j) in declared.iter().zip(fitted) {
            assert!(
                !f.fitted_to.is_empty() && !f.affects.is_empty(),
                "{name}: {f:?}"
            );
            assert!(f.fitted_to.contains("seed"), "{name}: {f:?}");
            assert_eq!(j["parameter"], f.parameter.as_str(), "{name}");
            assert!(
                md.contains(&format!(
                    "| {} | {} | {} |",
                    f.parameter, f.value, f.fitted_to
                )),
                "{name}: {md}"
            );
        }
    }
}

#[test]
fn an_undeclared_experiment_says_so() {
    let s = experiment::fitted_markdown(None);
    assert!(s.contains("Not declared"), "{s}");
    let s = experiment::fitted_markdown(Some(&[]));
    assert!(s.starts_with("## Fitted parameters\n\nNone"), "{s}");
}
