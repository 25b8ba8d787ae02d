//! The resource flags a multi-task YAML ignores, as SkyPilot's CLI prints
//! them: its `override_params` dict in Python's `repr`
//! (`sky/client/cli/command.py::_make_task_or_dag_from_entrypoint_with_overrides`).

use crate::pytext::py_str_repr;
use crate::schema::value::value_repr;
use crate::task::{OverrideParams, ParamValue};

/// `{'cloud': AWS, 'accelerators': 'V100:1', 'ports': ('8080',)}`.
pub fn override_params(params: &OverrideParams) -> String {
    let items: Vec<String> = params
        .0
        .iter()
        .map(|(key, value)| format!("'{key}': {}", param_value(value)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// One value as Python's `repr` shows it.
fn param_value(value: &ParamValue) -> String {
    match value {
        ParamValue::None => "None".to_string(),
        ParamValue::Cloud(cloud) => cloud.repr().to_string(),
        ParamValue::Str(s) => py_str_repr(s),
        ParamValue::Int(n) => n.to_string(),
        ParamValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ParamValue::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|s| py_str_repr(s)).collect();
            // A one-item tuple keeps its comma: `('8080',)`.
            let trailing = if items.len() == 1 { "," } else { "" };
            format!("({}{trailing})", items.join(", "))
        }
        ParamValue::Yaml(v) => value_repr(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::CloudId;

    #[test]
    fn the_dict_reads_as_python_prints_it() {
        let config: serde_yaml_ng::Value =
            serde_yaml_ng::from_str("{kubernetes: {pod_config: {a: 1}}}").unwrap();
        let params = OverrideParams(vec![
            ("cloud", ParamValue::Cloud(CloudId::Aws)),
            ("region", ParamValue::None),
            ("accelerators", ParamValue::Str("V100:1".into())),
            ("use_spot", ParamValue::Bool(true)),
            ("disk_size", ParamValue::Int(100)),
            ("ports", ParamValue::Tuple(vec!["8080".into()])),
            ("_cluster_config_overrides", ParamValue::Yaml(config)),
        ]);
        assert_eq!(
            override_params(&params),
            "{'cloud': AWS, 'region': None, 'accelerators': 'V100:1', 'use_spot': True, 'disk_size': 100, 'ports': ('8080',), '_cluster_config_overrides': {'kubernetes': {'pod_config': {'a': 1}}}}"
        );
        let two = OverrideParams(vec![(
            "ports",
            ParamValue::Tuple(vec!["80".into(), "443".into()]),
        )]);
        assert_eq!(override_params(&two), "{'ports': ('80', '443')}");
    }
}
