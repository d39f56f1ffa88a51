<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Category</name>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="32"/>
        <source>parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="33"/>
        <source>gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="35"/>
        <source>optimizer state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="37"/>
        <source>saved activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="39"/>
        <source>recomputed activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="41"/>
        <source>transient (temporaries, activation gradients)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="42"/>
        <source>inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/qt_convert.cpp" line="43"/>
        <source>workspace</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LayerCatalog</name>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="23"/>
        <source>Dense</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="24"/>
        <source>Activations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="27"/>
        <source>Normalisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="28"/>
        <source>Sequence models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="30"/>
        <source>Vision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="33"/>
        <source>Losses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="39"/>
        <source>Fully connected layer; saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="40"/>
        <source>ReLU; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="41"/>
        <source>GELU; saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="42"/>
        <source>SiLU (swish); saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="43"/>
        <source>tanh; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="44"/>
        <source>Sigmoid; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="45"/>
        <source>Softmax over the last dimension; saves its output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="46"/>
        <source>Layer norm; saves input, mean and rstd.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="47"/>
        <source>RMS norm; saves input and rstd.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="48"/>
        <source>Dropout; saves a 1-byte mask per element.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="50"/>
        <source>Token (and learned position) embedding; first layer of a token model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="51"/>
        <source>2-D convolution; saves its input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="52"/>
        <source>Batch norm over channels; saves input and statistics.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="53"/>
        <source>Max pooling; saves input and indices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="54"/>
        <source>Global average pooling to 1×1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="55"/>
        <source>Flattens to one dimension (a view: no memory).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="57"/>
        <source>Multi-head self-attention (qkv, attention core, projection).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="58"/>
        <source>Two-layer MLP, optionally gated (SwiGLU).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="60"/>
        <source>Pre-LN transformer block: attention and MLP with residuals; repeatable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="62"/>
        <source>ResNet block (basic or bottleneck) with shortcut; repeatable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="63"/>
        <source>Cross-entropy loss over the last dimension.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_catalog.cpp" line="64"/>
        <source>Mean squared error loss.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LayerFields</name>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="37"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="43"/>
        <source>Activation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="52"/>
        <source>Norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="64"/>
        <source>Attention core</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="77"/>
        <source>Variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="93"/>
        <source>Repeat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="96"/>
        <source>Output features</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="97"/>
        <location filename="../../ui/layer_fields.cpp" line="122"/>
        <location filename="../../ui/layer_fields.cpp" line="129"/>
        <location filename="../../ui/layer_fields.cpp" line="141"/>
        <location filename="../../ui/layer_fields.cpp" line="148"/>
        <source>Bias</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="104"/>
        <location filename="../../ui/layer_fields.cpp" line="108"/>
        <source>In place</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="107"/>
        <source>Probability</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="111"/>
        <source>Width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="112"/>
        <source>Learned positions (0: none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="114"/>
        <location filename="../../ui/layer_fields.cpp" line="121"/>
        <location filename="../../ui/layer_fields.cpp" line="128"/>
        <location filename="../../ui/layer_fields.cpp" line="140"/>
        <source>Dropout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="117"/>
        <location filename="../../ui/layer_fields.cpp" line="132"/>
        <source>Heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="118"/>
        <location filename="../../ui/layer_fields.cpp" line="133"/>
        <source>KV heads (0: same)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="120"/>
        <location filename="../../ui/layer_fields.cpp" line="139"/>
        <source>Causal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="125"/>
        <source>Hidden width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="127"/>
        <source>Gated (SwiGLU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="134"/>
        <source>MLP hidden width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="136"/>
        <source>Gated MLP (SwiGLU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="144"/>
        <source>Output channels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="145"/>
        <location filename="../../ui/layer_fields.cpp" line="151"/>
        <source>Kernel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="146"/>
        <location filename="../../ui/layer_fields.cpp" line="152"/>
        <location filename="../../ui/layer_fields.cpp" line="158"/>
        <source>Stride</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="147"/>
        <location filename="../../ui/layer_fields.cpp" line="153"/>
        <source>Padding</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_fields.cpp" line="157"/>
        <source>Channels</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <location filename="../../app/studio_main.cpp" line="61"/>
        <source>Remat Studio: see what activation checkpointing costs and saves.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="66"/>
        <source>A model file or a preset name (default gpt2-small).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="69"/>
        <source>Render the main window offscreen to FILE.png and quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="73"/>
        <source>Folder for the plots written without a display (default ./remat-output).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../app/studio_main.cpp" line="76"/>
        <source>Use the dark palette.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::Document</name>
    <message>
        <location filename="../../ui/document.cpp" line="81"/>
        <source>untitled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="271"/>
        <source>Strategy %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="277"/>
        <source>Micro-batch %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="283"/>
        <source>Accumulation steps %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="290"/>
        <source>Precision %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="296"/>
        <source>Optimizer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="302"/>
        <source>Device %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="308"/>
        <source>Edit input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="314"/>
        <source>Rename network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="342"/>
        <source>Toggle checkpoint %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="349"/>
        <location filename="../../ui/document.cpp" line="367"/>
        <source>Checkpoint %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="350"/>
        <location filename="../../ui/document.cpp" line="368"/>
        <source>Keep %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="375"/>
        <source>Clear plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="418"/>
        <source>Add %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="440"/>
        <source>Remove %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../../ui/document.cpp" line="441"/>
        <source>Remove %n layers</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="454"/>
        <source>Duplicate %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="472"/>
        <source>Move %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/document.cpp" line="484"/>
        <source>Edit %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::Inspector</name>
    <message>
        <location filename="../../ui/inspector.cpp" line="55"/>
        <source>Apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="56"/>
        <source>Revert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="67"/>
        <source>Apply the edit (one undo step)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="135"/>
        <source>(optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="156"/>
        <source>Layer %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="165"/>
        <source>Network input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="167"/>
        <source>Tokens (sequence length)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="168"/>
        <source>Vocabulary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="174"/>
        <source>Shape per sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="182"/>
        <source>Select a layer in the stack to edit its parameters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="235"/>
        <source>Output per sample: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="236"/>
        <source>scalar</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/inspector.cpp" line="238"/>
        <source>Input per sample: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::LayerStackModel</name>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="236"/>
        <source>input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="243"/>
        <source>%1–%2  %3 × %4</source>
        <extracomment>A repeated block, shown compactly: &quot;1–12 transformer_block × 12&quot;</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="262"/>
        <source>token ids</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="262"/>
        <source>tensor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="274"/>
        <source>scalar</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="282"/>
        <source>%1 tokens (vocab %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="308"/>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="310"/>
        <source>recompute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="313"/>
        <source>in %1</source>
        <extracomment>The row lies inside a larger checkpointed region, named by its label (&quot;1-3&quot;)</extracomment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="319"/>
        <source>Kept for backward: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="321"/>
        <source>The network&apos;s input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="324"/>
        <source>A repeated block; expand it to checkpoint single instances.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="331"/>
        <source>Checkpointed (recompute): only its inputs are kept; its saved tensors are recomputed in backward.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="333"/>
        <source>Kept: its saved tensors stay in memory until backward.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="386"/>
        <source>Layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="387"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="388"/>
        <source>Output (per sample)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="389"/>
        <source>Kept for backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="390"/>
        <source>Checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="397"/>
        <source>Activation bytes this row keeps until backward under the current plan (at the micro-batch set in the strategy bar)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_model.cpp" line="400"/>
        <source>Checked: a checkpointed (recompute) region</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::LayerStackView</name>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="36"/>
        <source>Layer stack</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="48"/>
        <source>Checkpoint selection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="50"/>
        <source>Make the selected consecutive layers one checkpointed (recompute) region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="56"/>
        <source>Clear plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="57"/>
        <source>Remove every checkpointed region</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="69"/>
        <source>Expand all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="72"/>
        <source>Collapse all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="175"/>
        <source>Select the layers to checkpoint together first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="190"/>
        <source>A region of several rows must be made of whole layers, not sub-modules.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/layer_stack_view.cpp" line="201"/>
        <source>Select consecutive layers: a region is one contiguous range.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::MainWindow</name>
    <message>
        <location filename="../../ui/main_window.cpp" line="75"/>
        <source>Strategy and training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="82"/>
        <source>Time the last edit took to simulate and redraw</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="94"/>
        <source>Layer stack</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="95"/>
        <source>Inspector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="96"/>
        <source>Palette</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="99"/>
        <source>Summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="100"/>
        <source>Comparison</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="101"/>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="114"/>
        <source>Edit refused: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="157"/>
        <source>updated in %1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window.cpp" line="167"/>
        <source>%1[*] — Remat Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="27"/>
        <source>&amp;Duplicate layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="33"/>
        <source>De&amp;lete layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="38"/>
        <source>Move layer &amp;up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="41"/>
        <source>Move layer do&amp;wn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="50"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="51"/>
        <source>&amp;New</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="52"/>
        <source>&amp;Open…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="53"/>
        <source>Open &amp;Recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="54"/>
        <source>&amp;Presets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="62"/>
        <source>&amp;Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="63"/>
        <source>Save &amp;As…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="65"/>
        <source>&amp;Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="66"/>
        <source>Timeline plot (PNG, SVG, PDF)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="68"/>
        <source>Trade-off plot (PNG, SVG, PDF)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="70"/>
        <source>Timeline as CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="71"/>
        <source>Comparison as CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="73"/>
        <source>Comparison as Markdown…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="76"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="78"/>
        <source>&amp;Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="79"/>
        <source>&amp;Undo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="81"/>
        <source>&amp;Redo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="92"/>
        <source>&amp;Clear plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="94"/>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="95"/>
        <source>Timeline &amp;x axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="97"/>
        <source>&amp;Instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="98"/>
        <source>Predicted &amp;time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="111"/>
        <source>&amp;Units</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="113"/>
        <source>GiB (2^30 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="114"/>
        <source>GB (10^9 bytes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="122"/>
        <source>&amp;Palette</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="124"/>
        <source>&amp;Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="125"/>
        <source>&amp;Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="139"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="140"/>
        <source>&amp;About Remat Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="141"/>
        <source>About &amp;Qt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="163"/>
        <source>Cannot open model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="164"/>
        <source>The model was not opened; the current one is unchanged.

%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="173"/>
        <source>Opened %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="180"/>
        <source>Cannot save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="185"/>
        <source>Saved %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="197"/>
        <source>New model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="202"/>
        <source>Open model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="203"/>
        <source>Remat models (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="215"/>
        <source>Save model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="216"/>
        <source>Remat models (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="223"/>
        <source>Unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="224"/>
        <source>%1 has unsaved changes. Save them first?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="233"/>
        <location filename="../../ui/main_window_menus.cpp" line="240"/>
        <location filename="../../ui/main_window_menus.cpp" line="247"/>
        <location filename="../../ui/main_window_menus.cpp" line="255"/>
        <source>Export failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="263"/>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="266"/>
        <source>Markdown (*.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="269"/>
        <source>CSV (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="273"/>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="280"/>
        <source>Exported %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="297"/>
        <source>Recover unsaved work</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="298"/>
        <source>Remat Studio closed unexpectedly. Recover the unsaved changes to %1 from %2?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="303"/>
        <source>Recovery failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="312"/>
        <source>About Remat Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/main_window_menus.cpp" line="313"/>
        <source>&lt;h3&gt;Remat Studio %1&lt;/h3&gt;&lt;p&gt;A lab for activation checkpointing: stack layers, choose what to recompute, and see the memory and time it costs — predicted by the simulator, confirmed by running the plan on the CPU or a GPU.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::Palette</name>
    <message>
        <location filename="../../ui/palette.cpp" line="18"/>
        <source>Add after current layer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/palette.cpp" line="22"/>
        <source>Layer palette</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::PlotAdapter</name>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="726"/>
        <source>Remat Studio plot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="733"/>
        <source>Cannot export to &quot;%1&quot;: choose a .png, .svg or .pdf file name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/plot_adapter.cpp" line="737"/>
        <source>Could not write &quot;%1&quot;. Check that the folder exists and is writable.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::StrategyBar</name>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="39"/>
        <source>manual (click the stack)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="40"/>
        <source>none (keep everything)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="41"/>
        <source>full (every block)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="42"/>
        <source>every k blocks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="43"/>
        <source>sqrt(N) groups</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="44"/>
        <source>selective (sub-modules)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="45"/>
        <source>optimal under a budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="46"/>
        <source>optimal, nested, under a budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="47"/>
        <source>revolve (c checkpoints)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="76"/>
        <source>Checkpointing strategy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="79"/>
        <source>Blocks per checkpointed group (every k) or checkpoints (revolve)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="88"/>
        <source>Sub-module kinds to checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="92"/>
        <source>Memory budget for the optimal planner</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="97"/>
        <source>Samples per micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="99"/>
        <source>Gradient-accumulation steps (micro-batches per optimizer step)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="107"/>
        <source>Device profile: capacity, peak FLOP/s, bandwidth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="112"/>
        <source>Strategy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="117"/>
        <source>Micro-batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="119"/>
        <source>× steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="121"/>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="123"/>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="125"/>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="181"/>
        <source>kinds…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="228"/>
        <source>%1 (usable %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/strategy_bar.cpp" line="230"/>
        <source>Device memory, and what is left after the CUDA context and library reserve</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>remat::ui::TimelinePlot</name>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="46"/>
        <source>setup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="47"/>
        <source>forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="48"/>
        <source>recompute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="49"/>
        <source>backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="50"/>
        <source>optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="51"/>
        <source>teardown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="128"/>
        <location filename="../../ui/timeline_plot.cpp" line="206"/>
        <source>instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="129"/>
        <source>live memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="203"/>
        <source>live memory (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="209"/>
        <source>predicted time (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="314"/>
        <source>phase: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="328"/>
        <source>usable capacity of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="329"/>
        <source>usable capacity of %1: %2, above this scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="334"/>
        <source>usable capacity %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="336"/>
        <source>peak %1 at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="370"/>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="409"/>
        <source>phase: %1, micro-batch %2 of %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="417"/>
        <source>layer: %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="421"/>
        <source>predicted time: starts at %1, takes %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="433"/>
        <source>live in total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="439"/>
        <source>This is the peak.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="462"/>
        <location filename="../../ui/timeline_plot.cpp" line="470"/>
        <source>There is no timeline to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../../ui/timeline_plot.cpp" line="475"/>
        <location filename="../../ui/timeline_plot.cpp" line="499"/>
        <source>Could not write &quot;%1&quot;: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
